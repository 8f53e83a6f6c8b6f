// Reference version of joint.stan for tests and benchmarks: the same model and parameters, with
// the likelihood of every data set written literally as the multivariate normal density of the
// stacked contrasts vec(Y_i) (columns stacked), theta_i integrated out:
//
//   vec(Y_i) ~ MVN(theta0 (x) 1, Omega_i (x) R_i + (Sigma0 / tau_i) (x) 1 1')
//
// and, for a data set with d_i = observed[i] < d contrasts of its own (models missing), on the
// first d_i columns of its rows of y (the rest zero), with M_i = design[i][1:d_i]:
//
//   vec(Y_i) ~ MVN((M_i theta0) (x) 1, Omega_i (x) R_i + (M_i Sigma0 M_i' / tau_i) (x) 1 1')
//
// It ignores the sufficient statistics (ybar, scatter) of the shared data block and must give the
// same log density as joint.stan (tests/test_joint_stan.py).  Cost O(q (n d)^3): tests only.
functions {
#include hierarchical_functions.stan
#include joint_functions.stan
  matrix kronecker(matrix A, matrix B) {
    int p = rows(A);
    int m = rows(B);
    matrix[p * m, p * m] K;
    for (r in 1:p) {
      for (c in 1:p) {
        K[((r - 1) * m + 1):(r * m), ((c - 1) * m + 1):(c * m)] = A[r, c] * B;
      }
    }
    return K;
  }
}
data {
#include joint_data.stan
  int<lower=1> total;                              // sum of n_i
  matrix[total, k - 1] y;                          // contrasts of all folds, set after set
                                                   // (observed[i] columns used, zeros after)
}
transformed data {
#include joint_transformed_data.stan
}
parameters {
#include joint_parameters.stan
}
model {
#include joint_prior.stan
  int start = 1;
  for (i in 1:q) {
    int m = n[i];
    int e = observed[i];
    matrix[e, d] M = design[i][1:e];
    matrix[m, m] R = (1 - rho[i]) * identity_matrix(m) + rho[i] * rep_matrix(1, m, m);
    matrix[e, e] Omega = multiply_lower_tri_self_transpose(noise_basis[i][1:e, 1:e]
                                                           * noise_factor[i][1:e, 1:e]);
    matrix[e, e] population_part = quad_form_sym(population_cov, M');
    matrix[m * e, m * e] K = kronecker(Omega, R)
                             + kronecker(population_part * inverse_tau[i], rep_matrix(1, m, m));
    vector[m * e] mean = to_vector(rep_matrix((M * theta0)', m));
    target += multi_normal_lpdf(to_vector(y[start:(start + m - 1), 1:e]) | mean, K);
    start += m;
  }
}
