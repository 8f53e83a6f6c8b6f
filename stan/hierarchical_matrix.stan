// Reference version of hierarchical.stan with the likelihood written literally as a
// multivariate normal with the full covariance matrix of each data set: delta_i integrated out,
// x_i ~ MVN(1 delta0, Sigma_i + v_i 1 1') with Sigma_i = sigma_i^2 [(1 - rho_i) I + rho_i 1 1']
// and v_i = Var(delta_i | delta0, sigma0, tau_i).  Same data (plus the raw differences),
// parameters and prior; used only by the tests (equal log density) and the benchmark (speed of
// the closed form).  O(q n^3) per gradient.
functions {
#include hierarchical_functions.stan
}
data {
#include hierarchical_data.stan
  int<lower=1> total;                              // sum(n)
  vector[total] x;                                 // all differences, data set after data set
}
transformed data {
#include hierarchical_transformed_data.stan
  array[q] int start;
  start[1] = 1;
  for (i in 2:q) {
    start[i] = start[i - 1] + n[i - 1];
  }
}
parameters {
#include hierarchical_parameters.stan
}
transformed parameters {
#include hierarchical_transformed_parameters.stan
}
model {
#include hierarchical_prior.stan
  for (i in 1:q) {
    matrix[n[i], n[i]] correlation = add_diag(rep_matrix(rho[i], n[i], n[i]), 1 - rho[i]);
    segment(x, start[i], n[i]) ~ multi_normal(rep_vector(delta0, n[i]),
                                              square(sigma[i]) * correlation
                                              + rep_matrix(population_variance[i], n[i], n[i]));
  }
}
