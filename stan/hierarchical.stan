// Bayesian hierarchical model of cross-validation results on several data sets
// (Corani, Benavoli, Demsar, Mangili & Zaffalon, Machine Learning 106, 2017).
//
//   delta_i ~ Student-t(nu, delta0, sigma0)         i = 1..q
//   sigma_i ~ Uniform(0, sigma_upper)
//   x_i     ~ MVN(1 delta_i, Sigma_i),  Sigma_i = sigma_i^2 [(1 - rho_i) I + rho_i 1 1']
//
// Likelihood from sufficient statistics.  For the equicorrelated covariance, with
// a_i = 1 - rho_i, b_i = 1 + (n_i - 1) rho_i, xbar_i the mean and SS_i = sum_j (x_ij - xbar_i)^2:
//
//   (x_i - 1 delta_i)' Sigma_i^{-1} (x_i - 1 delta_i) = [SS_i / a_i + n_i (xbar_i - delta_i)^2 / b_i] / sigma_i^2
//   log |Sigma_i| = 2 n_i log sigma_i + (n_i - 1) log a_i + log b_i
//
// so the log likelihood of all q data sets is one vectorised expression in (n, xbar, SS, rho),
// computed once from the data: a gradient costs O(q), independent of the number of folds.
// hierarchical_matrix.stan states the same likelihood literally (multi_normal) for tests.
data {
#include hierarchical_data.stan
  vector[q] xbar;                                  // mean of the differences of data set i
  vector<lower=0>[q] ss;                           // sum of squared deviations from xbar_i
}
transformed data {
#include hierarchical_transformed_data.stan
  vector[q] n_real = to_vector(n);
  vector[q] a = 1 - rho;
  vector[q] b = 1 + (n_real - 1) .* rho;
  // parameter-free part of the log likelihood: -n/2 log(2 pi) - [(n - 1) log a + log b] / 2
  real log_lik_constant = -0.5 * sum(n_real) * log(2 * pi())
                          - 0.5 * sum((n_real - 1) .* log(a) + log(b));
}
parameters {
#include hierarchical_parameters.stan
}
model {
#include hierarchical_prior.stan
  target += log_lik_constant
            - 0.5 * sum((ss ./ a + n_real .* square(xbar - delta) ./ b) ./ square(sigma))
            - dot_product(n_real, log(sigma));
}
