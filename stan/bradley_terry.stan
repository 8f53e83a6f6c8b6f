// Bayesian Bradley-Terry model of k algorithms compared on many data sets (Wainer, JMLR 24,
// 2023), optionally with Davidson's tie parameter.
//
// Pair n compares algorithms first[n] and second[n]: win_first[n] data sets where first won,
// win_second[n] where second won and ties[n] ties (counts may be halves: the "spread" policy).
// P(first beats second) = exp(beta_first) / (exp(beta_first) + exp(beta_second)).
// Without Davidson the ties are already folded into the counts by the tie policy and the
// likelihood is the binomial (generalised to real counts through lgamma):
//   log C(n, w1) + w1 log p + w2 log(1 - p),  n = w1 + w2.
// With Davidson, a win of first, of second and a tie have weights exp(beta_first),
// exp(beta_second) and exp(nu + (beta_first + beta_second) / 2); the counts are multinomial.
// Priors: beta ~ N(0, sigma^2 I); sigma ~ lognormal(0, scale) (scale 0.5 as published) or
// half-Cauchy(0, scale); nu ~ N(0, sigma_nu), sigma_nu ~ lognormal(0, 0.5).
// The likelihood depends on the betas through their differences only, so their mean, which the
// data never inform (a funnel with sigma for the sampler), is integrated out exactly: the
// program samples the centred betas c = beta - mean(beta), which sum to 0, through their first
// K - 1 coordinates, whose density is N(0, sigma^2 (I - J / K)):
//   log p = -(K - 1) / 2 log(2 pi) + log(K) / 2 - (K - 1) log sigma - sum_k c_k^2 / (2 sigma^2).
data {
  int<lower=2> K;
  int<lower=0> N;
  array[N] int<lower=1, upper=K> first;
  array[N] int<lower=1, upper=K> second;
  vector<lower=0>[N] win_first;
  vector<lower=0>[N] win_second;
  vector<lower=0>[N] ties;
  int<lower=0, upper=1> davidson;
  int<lower=0, upper=1> cauchy_scale;  // 0: lognormal(0, prior_scale), 1: half-Cauchy(0, prior_scale)
  real<lower=0> prior_scale;
}
transformed data {
  // the counts' multinomial coefficients (binomial without Davidson), constants of the likelihood
  real log_coefficients = 0;
  for (n in 1:N) {
    if (davidson == 1) {
      log_coefficients += lgamma(win_first[n] + win_second[n] + ties[n] + 1)
                          - lgamma(win_first[n] + 1) - lgamma(win_second[n] + 1)
                          - lgamma(ties[n] + 1);
    } else {
      log_coefficients += lgamma(win_first[n] + win_second[n] + 1) - lgamma(win_first[n] + 1)
                          - lgamma(win_second[n] + 1);
    }
  }
}
parameters {
  real<lower=0> sigma;
  vector[K - 1] beta_free;
  array[davidson] real nu;
  array[davidson] real<lower=0> sigma_nu;
}
transformed parameters {
  vector[K] beta = append_row(beta_free, -sum(beta_free));
}
model {
  if (cauchy_scale == 1) {
    target += cauchy_lpdf(sigma | 0, prior_scale) + log2();
  } else {
    target += lognormal_lpdf(sigma | 0, prior_scale);
  }
  target += -(K - 1) * 0.5 * log(2 * pi()) + 0.5 * log(K) - (K - 1) * log(sigma)
            - dot_self(beta) / (2 * square(sigma));
  target += log_coefficients;
  if (davidson == 1) {
    target += lognormal_lpdf(sigma_nu[1] | 0, 0.5);
    target += normal_lpdf(nu[1] | 0, sigma_nu[1]);
    for (n in 1:N) {
      real a = beta[first[n]];
      real b = beta[second[n]];
      real t = nu[1] + (a + b) / 2;
      real total = log_sum_exp([a, b, t]);
      target += win_first[n] * (a - total) + win_second[n] * (b - total) + ties[n] * (t - total);
    }
  } else {
    vector[N] d = beta[first] - beta[second];
    target += dot_product(win_first, log_inv_logit(d)) + dot_product(win_second, log_inv_logit(-d));
  }
}
