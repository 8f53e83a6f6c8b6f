  // ---- shared transformed data of the hierarchical programs ----
  int student = nu_prior != 2;                     // 1 when the population is Student-t
  // delta0 = D (2 logit^-1(u) - 1) with u = delta0_logit_centre + delta0_logit_scale * delta0_raw:
  // u = delta0_logit_centre puts delta0 at delta0_centre, and a unit step of delta0_raw moves
  // delta0 by about delta0_spread there (d delta0 / du = 2 D p (1 - p), p = logit^-1(u)).
  // A centre outside the bounds (possible with a fixed delta0_bound) is moved just inside.
  real delta0_p = fmin(fmax((delta0_centre + delta0_bound) / (2 * delta0_bound), 0.001), 0.999);
  real delta0_logit_centre = logit(delta0_p);
  real delta0_logit_scale = delta0_spread / (2 * delta0_bound * delta0_p * (1 - delta0_p));
