"""The versions of the packages behind a result, as every report and settings record states them."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

#: Packages whose versions every report states.
REPORTED_PACKAGES = ("bayes_hier", "numpy", "pandas", "scipy", "arviz", "pystan", "httpstan")


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`REPORTED_PACKAGES` (``"not installed"`` when absent)."""
    out = {}
    for name in REPORTED_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


__all__ = ["REPORTED_PACKAGES", "package_versions"]
