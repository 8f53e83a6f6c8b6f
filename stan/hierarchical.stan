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
// because Sigma_i has the eigenvalue sigma_i^2 a_i on the n_i - 1 directions orthogonal to 1 and
// sigma_i^2 b_i on 1.  With the population written as a scale mixture (hierarchical_prior.stan),
// delta_i | tau_i ~ N(delta0, v_i) with v_i = sigma0^2 / tau_i, and integrating delta_i out adds
// v_i 1 1' to Sigma_i: the covariance stays equicorrelated, only the eigenvalue on 1 changes to
// sigma_i^2 b_i + n_i v_i.  The marginal log likelihood of data set i is therefore
//
//   -n_i/2 log(2 pi) - (n_i - 1)/2 log(sigma_i^2 a_i) - 1/2 log(sigma_i^2 b_i + n_i v_i)
//     - SS_i / (2 a_i sigma_i^2) - n_i (xbar_i - delta0)^2 / (2 (sigma_i^2 b_i + n_i v_i))
//
// i.e. the SS_i part plus a normal density of xbar_i with mean delta0 and variance
// v_i + sigma_i^2 b_i / n_i.  All q data sets are one vectorised expression in (n, xbar, SS, rho)
// computed once from the data: a gradient costs O(q), independent of the number of folds.
// hierarchical_matrix.stan states the same likelihood literally (multi_normal) for tests.
functions {
#include hierarchical_functions.stan
}
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
  vector[q] ss_over_a = ss ./ a;
  vector[q] b_over_n = b ./ n_real;
  // what the normal density of xbar_i leaves out of the exact marginal log likelihood:
  // -(n_i - 1)/2 log(2 pi) - (n_i - 1)/2 log a_i - 1/2 log n_i
  real log_lik_constant = -0.5 * sum((n_real - 1) .* log(2 * pi() * a) + log(n_real));
}
parameters {
#include hierarchical_parameters.stan
}
transformed parameters {
#include hierarchical_transformed_parameters.stan
}
model {
#include hierarchical_prior.stan
  vector[q] sigma_sq = square(sigma);
  target += log_lik_constant
            - 0.5 * dot_product(ss_over_a, inv(sigma_sq))
            - 0.5 * dot_product(n_real - 1, log(sigma_sq))
            + normal_lpdf(xbar | delta0, sqrt(population_variance + b_over_n .* sigma_sq));
}
