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
// inverse Wishart ones, for simulation-based calibration: joint_data.stan and below)
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
// Omega_i integrated out.  R_i has the eigenvalue a_i = 1 - rho_i on the n_i - 1 directions
// orthogonal to 1 and b_i = 1 + (n_i - 1) rho_i on 1.  With the contrast means ybar_i, the
// scatter S_i = sum_j (y_ij - ybar_i)(y_ij - ybar_i)' and e_i = ybar_i - theta_i,
//
//   p(Y_i | theta_i, Omega_i) p(Omega_i) ~ |Omega_i|^(-(n_i + 1)/2)
//                                         exp(-tr(Omega_i^-1 (S_i / a_i + (n_i / b_i) e_i e_i')) / 2),
//
// an inverse Wishart kernel in Omega_i with n_i - d degrees of freedom, whose integral is
// proportional to |S_i / a_i + (n_i / b_i) e_i e_i'|^(-(n_i - d)/2)
// ~ (1 + (n_i a_i / b_i) e_i' S_i^-1 e_i)^(-(n_i - d)/2): the multivariate Student-t density of
// ybar_i with location theta_i, df_i = n_i - 2d degrees of freedom and scale
// V_i = (b_i / n_i) (S_i / a_i) / df_i (a proper density of ybar_i for df_i >= 1, hence
// n_i >= 2d + 1 results).  Under the calibration prior Omega_i ~ InvWishart(nu_N, Psi) the same
// integral gives df_i = nu_N - d + n_i and V_i = (b_i / n_i) (Psi + S_i / a_i) / df_i.  The
// Python layer computes df_i and V_i (noise_df, mean_noise_root; joint/likelihood.py).
//
// Two scale mixtures then integrate theta_i out in closed form.  The Student-t of ybar_i is
// ybar_i | theta_i, w_i ~ N(theta_i, V_i / w_i), w_i ~ Gamma(df_i / 2, df_i / 2), and the
// Student-t population is theta_i | tau_i ~ N(theta0, Sigma0 / tau_i),
// tau_i ~ Gamma(nu / 2, nu / 2), so
//
//   ybar_i | tau_i, w_i ~ N(theta0, Sigma0 / tau_i + V_i / w_i).
//
// The program samples the population's parameters and two scalars per data set (tau_i, w_i, as
// standardised logs); a gradient costs O(q d^3), independent of the number of folds.  The Python
// layer draws theta_i from its normal full conditional given tau_i and w_i, and Omega_i from its
// inverse Wishart full conditional given theta_i (joint/posterior.py): exact posterior draws.
// The model is the one with Omega_i sampled; only the coordinates differ (d(d + 1)/2 noise
// coordinates per data set became one).
//
// Parametrisation.  theta0 = mean_i ybar_i + A0 theta0_raw and Sigma0 = g A0 L0 L0' A0' with
// the data-based lower triangular basis A0 and the parameters theta0_raw and L0 (as its standard
// deviations and correlation factor), all of order 1: linear changes of variables with constant
// Jacobians, so the posterior is unchanged and the sampler sees unit scales and little
// correlation.
//
// Models missing on some data sets (joint_data.stan: observed, design).  Data set i with k_i < k
// models has its own d_i = k_i - 1 orthonormal contrasts C_i of those models, with mean
// M_i theta_i (M_i = C_i E_i C'), and its own d_i x d_i Omega_i; everything above holds with d_i
// for d, so that with theta_i integrated out
//   ybar_i ~ N(M_i theta0, M_i Sigma0 M_i' / tau_i + V_i / w_i)
// with df_i = n_i - 2 d_i and V_i from the observed d_i x d_i scatter.  Representation: every
// data set is padded to d (ybar_i and V_i's factor in their top-left / first d_i rows, the
// identity beyond), and the complete data sets keep their own loop.
functions {
#include hierarchical_functions.stan
#include joint_functions.stan
}
data {
#include joint_data.stan
  // the Student-t of ybar_i | theta_i left by integrating Omega_i out (header), padded beyond
  // observed[i] like ybar[i] (the identity on the unused diagonal block of the factor)
  vector<lower=1>[q] noise_df;                       // df_i
  array[q] cholesky_factor_cov[k - 1] mean_noise_root;  // Cholesky factor of V_i
}
transformed data {
#include joint_transformed_data.stan
  array[q] matrix[d, d] mean_noise;                  // V_i
  vector[q] half_noise_df = 0.5 * noise_df;
  for (i in 1:q) {
    mean_noise[i] = multiply_lower_tri_self_transpose(mean_noise_root[i]);
  }
}
parameters {
#include joint_parameters.stan
  vector[q] noise_weight_raw;                        // standardised log w_i
#include joint_mixing_parameters.stan
}
transformed parameters {
#include joint_transformed_parameters.stan
}
model {
#include joint_prior.stan
#include joint_population_calibration.stan
  // 1 / w_i, w_i ~ Gamma(df_i / 2, df_i / 2) sampled as its standardised log
  // (hierarchical_functions.stan; the calibration prior changes df_i and V_i only)
  vector[q] inverse_weight;
  for (i in 1:q) {
    inverse_weight[i] = exp(-standardised_log_gamma_lp(noise_weight_raw[i:i], half_noise_df[i],
                                                       half_noise_df[i])[1]);
  }
  for (i in complete_sets) {
    target += multi_normal_cholesky_lpdf(
                ybar[i] | theta0, cholesky_decompose(population_cov * inverse_tau[i]
                                                     + mean_noise[i] * inverse_weight[i]));
  }
  // data sets with some model missing: the same on the block of their m = observed[i] contrasts,
  // ybar_i ~ N(M_i theta0, M_i Sigma0 M_i' / tau_i + V_i / w_i)
  for (i in incomplete_sets) {
    int m = observed[i];
    matrix[m, d] M = design[i][1:m];
    // a local matrix (column-major): Stan Math's cholesky_decompose does not take the row-major
    // expression that quad_form_sym(., M') gives
    matrix[m, m] population_part = quad_form_sym(population_cov, M');
    target += multi_normal_cholesky_lpdf(
                ybar[i][1:m] | M * theta0,
                cholesky_decompose(population_part * inverse_tau[i]
                                   + mean_noise[i][1:m, 1:m] * inverse_weight[i]));
  }
}
