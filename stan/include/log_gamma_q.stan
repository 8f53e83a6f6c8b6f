  // ---- shared function of the hierarchical programs that integrate sigma_i out ----
  // log Q(h, x) of the regularised upper incomplete gamma function, for x > 0.  Below 1e-3 by
  // the series P(h, x) = x^h e^-x / Gamma(h + 1) (1 + x / (h + 1) + x^2 / ((h + 1)(h + 2)) + ...)
  // cut after its third term (relative error of P below x^3 < 1e-9); from max(50, 10 h) on by the
  // asymptotic series Q(h, x) = x^(h-1) e^-x / Gamma(h) (1 + (h-1)/x + (h-1)(h-2)/x^2
  // + (h-1)(h-2)(h-3)/x^3 + ...) (relative error below 1e-4, where gamma_q would underflow to 0
  // and its logarithm and gradient would not be finite); between the two by gamma_q.
  vector log_gamma_q(vector h, vector x, vector lgamma_h_plus_one) {
    vector[rows(x)] small = fmin(x, 1e-3);
    vector[rows(x)] out = log1m_exp(h .* log(small) - small - lgamma_h_plus_one
                                    + log1p(small ./ (h + 1) .* (1 + small ./ (h + 2))));
    for (i in 1:rows(x)) {
      if (x[i] >= fmax(50, 10 * h[i])) {
        real r = (h[i] - 1) / x[i];
        out[i] = (h[i] - 1) * log(x[i]) - x[i] - (lgamma_h_plus_one[i] - log(h[i]))
                 + log1p(r * (1 + (h[i] - 2) / x[i] * (1 + (h[i] - 3) / x[i])));
      } else if (x[i] >= 1e-3) {
        out[i] = log(gamma_q(h[i], x[i]));
      }
    }
    return out;
  }
