// Joint Bayesian model of cross-validation results of k models on q data sets.
//
// Scores X_i (n_i folds x k models) of data set i, folds paired across models.  With C the
// (k-1) x k orthonormal Helmert contrasts (rows orthonormal and orthogonal to 1), the contrasts
// Y_i = X_i C' (n_i x d, d = k - 1) remove each data set's overall difficulty and are modelled as
//
//   vec(Y_i) ~ MVN(theta_i (x) 1, Omega_i (x) R_i),   R_i = (1 - rho_i) I + rho_i 1 1'
//   theta_i  ~ MVT_d(nu, theta0, Sigma0)                    (the population of true contrasts)
//   p(theta0) = 1,  p(Omega_i) ~ |Omega_i|^(-1/2)
//   Sigma0 = A0 F F' A0',  F = diag(s) L_R,  L_R L_R' ~ LKJ(2),  s_j ~ half-normal(0, 2)
//   nu = 1 + nu',  nu' ~ Gamma(alpha, beta),  alpha, beta uniform   (as in hierarchical.stan)
// (calibration_prior = 1 replaces the priors of theta0, Sigma0 and Omega_i by proper normal and
// inverse Wishart ones, for simulation-based calibration: joint_data.stan and the data block)
// where A0 is the data-based basis of Sigma0 (the Cholesky factor of the spread of the data sets'
// mean contrasts; joint_prior.stan).
//
// At k = 2, C = [-1, 1] / sqrt(2): Y_i = d_i / sqrt(2), Omega_i = sigma_i^2 / 2 and
// Sigma0 = sigma0^2 / 2, |M|^(-1/2) on a 1 x 1 covariance M is the uniform prior on its square
// root, and sigma0 has a half-normal prior twice as wide as the spread of the data sets' mean
// differences: the model is the hierarchical model of Corani et al. (2017) with its
// wide uniform priors on the noise taken to their flat limit and a proper, data-scaled prior on
// the population's scale.  The priors of theta0 and Omega_i depend on them only through Lebesgue
// measure and determinants, which are invariant under Y -> Y Q' for every orthogonal Q; permuting
// the models maps C to Q C with Q = C P' C' orthogonal.  Sigma0's prior acts in the basis A0,
// which rotates with the models' order: the posterior is permutation-invariant up to that
// weak prior's influence.
//
// Likelihood from sufficient statistics.  R_i has the eigenvalue a_i = 1 - rho_i on the n_i - 1
// directions orthogonal to 1 and b_i = 1 + (n_i - 1) rho_i on 1.  With the contrast means ybar_i
// and the scatter S_i = sum_j (y_ij - ybar_i)(y_ij - ybar_i)':
//
//   log p(Y_i) = -n_i d/2 log(2 pi) - n_i/2 log|Omega_i| - d(n_i - 1)/2 log a_i - d/2 log b_i
//                - tr(Omega_i^-1 S_i) / (2 a_i)
//                - n_i (ybar_i - theta_i)' Omega_i^-1 (ybar_i - theta_i) / (2 b_i)
//
// The Student-t population is the scale mixture theta_i | tau_i ~ N(theta0, Sigma0 / tau_i),
// tau_i ~ Gamma(nu/2, nu/2); integrating theta_i out turns the last term into the normal density
//
//   ybar_i ~ N(theta0, Sigma0 / tau_i + (b_i / n_i) Omega_i)
//
// (up to -d/2 log n_i).  A gradient costs O(q d^3), independent of the number of folds.  The
// Python layer draws theta_i afterwards from its normal full conditional.
//
// Parametrisation.  theta0 = mean_i ybar_i + A0 theta0_raw, Sigma0 = g A0 L0 L0' A0' and
// Omega_i = A_i L_i L_i' A_i' with data-based lower triangular bases A0, A_i (data) and the
// parameters theta0_raw, L0 (as its standard deviations and correlation factor) and Cholesky
// factors L_i, all of order 1: linear changes of variables with constant Jacobians, so the
// posterior is unchanged and the sampler sees unit scales and little correlation.  With
// M = L L', p(M) ~ |M|^(-1/2) and the Jacobian of M -> L (2^d prod_j L_jj^(d - j + 1)) give
// log p(L) = sum_j (d - j) log L_jj + const.
// With T_i = A_i^-1 S_i A_i^-T / a_i = G_i G_i':  tr(Omega_i^-1 S_i) / a_i = |L_i^-1 G_i|_F^2.
//
// Models missing on some data sets (joint_data.stan: observed, design).  Data set i with k_i < k
// models has its own d_i = k_i - 1 orthonormal contrasts C_i of those models, with mean
// M_i theta_i (M_i = C_i E_i C'), and its own d_i x d_i Omega_i; with theta_i integrated out
//   ybar_i ~ N(M_i theta0, M_i Sigma0 M_i' / tau_i + (b_i / n_i) Omega_i)
// and the Wishart part uses the observed d_i x d_i scatter.  Representation: every data set is
// padded to d (ybar_i, S_i, A_i and M_i in their top-left / first d_i rows), and L_i stays
// d x d: its top-left d_i block is Omega_i's Cholesky factor (in the basis A_i) and its other
// entries get a fixed proper density that does not touch the likelihood
// (padded_cholesky_log_prior).  Chosen over grouping the data sets by missingness pattern
// (one parameter array per pattern, ragged sizes) because it keeps one data layout and one
// parameter array; it adds a few unit-scale independent coordinates per incomplete data set, and
// the complete data sets keep exactly the code they had (separate loops).
functions {
#include hierarchical_functions.stan
#include joint_functions.stan
}
data {
#include joint_data.stan
  array[q] cov_matrix[k - 1] scatter;              // S_i, scatter of the contrasts about ybar_i
  array[q] cholesky_factor_cov[k - 1] noise_basis; // A_i: Omega_i = A_i L_i L_i' A_i'
  // (padded beyond observed[i] like ybar[i]: zeros off and the identity on the diagonal block)
  // calibration prior of the Omega_i (calibration_prior = 1; joint_data.stan):
  //   Omega_i ~ InvWishart(noise_prior_df, noise_prior_scale)   (every data set; on a data set
  //     with d_i < k - 1 observed contrasts, InvWishart(noise_prior_df - (k - 1) + d_i,
  //     M_i noise_prior_scale M_i'): the law of M_i Omega M_i' when Omega has the full prior)
  real noise_prior_df;
  cov_matrix[k - 1] noise_prior_scale;
}
transformed data {
#include joint_transformed_data.stan
  array[q] matrix[d, d] scatter_root;            // G_i: Cholesky factor of A_i^-1 S_i A_i^-T / a_i
  vector[q] b_over_n = b ./ n_real;
  // constants of the exact log likelihood of Y_i that the normal density of ybar_i leaves out
  real log_lik_constant = 0;
  for (i in 1:q) {
    // padded data sets: A_i, S_i block-diagonal, so G_i is too and its top-left block is theirs;
    // the padding of A_i is the identity (log 1 = 0 in the sum below)
    matrix[d, d] half = mdivide_left_tri_low(noise_basis[i], scatter[i]);
    matrix[d, d] whitened = mdivide_left_tri_low(noise_basis[i], half');
    scatter_root[i] = cholesky_decompose(0.5 * (whitened + whitened') / a[i]);
    log_lik_constant += -0.5 * observed[i] * ((n_real[i] - 1) * log(2 * pi() * a[i])
                                              + log(n_real[i]))
                        - (n_real[i] - 1) * sum(log(diagonal(noise_basis[i])));
  }
}
parameters {
#include joint_parameters.stan
  array[q] cholesky_factor_cov[d] noise_factor;    // L_i: Omega_i = A_i L_i L_i' A_i'
#include joint_mixing_parameters.stan
}
transformed parameters {
#include joint_transformed_parameters.stan
}
model {
#include joint_prior.stan
  // p(Omega_i) ~ |Omega_i|^(-1/2) (joint_functions.stan; for a data set with some model missing,
  // on the block of its observed contrasts: padded_cholesky_log_prior)
  for (i in complete_sets) {
    target += invariant_cholesky_log_prior(noise_factor[i]);
  }
  for (i in incomplete_sets) {
    target += padded_cholesky_log_prior(noise_factor[i], observed[i]);
  }
#include joint_population_calibration.stan
  if (calibration_prior) {
    for (i in 1:q) {
      int m = observed[i];
      matrix[m, d] M = design[i][1:m];
      matrix[m, m] scale = quad_form_sym(noise_prior_scale, M');
      target += inverse_wishart_replacement(
                  multiply_lower_tri_self_transpose(noise_basis[i][1:m, 1:m]
                                                    * noise_factor[i][1:m, 1:m]),
                  noise_prior_df - d + m, scale);
    }
  }
  for (i in complete_sets) {
    matrix[d, d] noise_cov = b_over_n[i] * multiply_lower_tri_self_transpose(
                                             noise_basis[i] * noise_factor[i]);
    // Wishart part: -(n_i - 1)/2 log|L_i L_i'| - tr(Omega_i^-1 S_i) / (2 a_i), A_i in the constant
    target += -(n_real[i] - 1) * sum(log(diagonal(noise_factor[i])))
              - 0.5 * sum(columns_dot_self(mdivide_left_tri_low(noise_factor[i], scatter_root[i])));
    target += multi_normal_cholesky_lpdf(
                ybar[i] | theta0, cholesky_decompose(population_cov * inverse_tau[i] + noise_cov));
  }
  // data sets with some model missing: the same on the block of their m = observed[i] contrasts,
  // ybar_i ~ N(M_i theta0, M_i Sigma0 M_i' / tau_i + (b_i / n_i) Omega_i)
  for (i in incomplete_sets) {
    int m = observed[i];
    matrix[m, d] M = design[i][1:m];
    matrix[m, m] factor = noise_factor[i][1:m, 1:m];
    matrix[m, m] noise_cov = b_over_n[i] * multiply_lower_tri_self_transpose(
                                             noise_basis[i][1:m, 1:m] * factor);
    target += -(n_real[i] - 1) * sum(log(diagonal(factor)))
              - 0.5 * sum(columns_dot_self(mdivide_left_tri_low(factor,
                                                                scatter_root[i][1:m, 1:m])));
    // a local matrix (column-major): Stan Math's cholesky_decompose does not take the row-major
    // expression that quad_form_sym(., M') gives
    matrix[m, m] population_part = quad_form_sym(population_cov, M');
    target += multi_normal_cholesky_lpdf(
                ybar[i][1:m] | M * theta0,
                cholesky_decompose(population_part * inverse_tau[i] + noise_cov));
  }
  target += log_lik_constant;
}
