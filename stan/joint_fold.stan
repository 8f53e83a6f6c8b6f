// Joint Bayesian model of k models on q data sets with fold-level noise: the joint model of
// joint.stan with the noise covariance of each data set's contrasts restricted to O(k)
// parameters, so that it is identified from 2 folds (joint.stan's full Omega_i needs at least as
// many folds as models).
//
// Scores of model m on fold j of data set i:
//
//   x_ijm = mu_im + u_ij + e_ijm,   e_ij ~ N(0, D_i),   D_i = diag(sigma_i1^2, ..., sigma_ik^2)
//
// u_ij, the fold's difficulty shared by every model, cancels in the contrasts Y_i = X_i C'
// (C the (k-1) x k orthonormal Helmert contrasts, C 1 = 0); e_ijm is correlated across the folds
// of one model by R_i = (1 - rho_i) I + rho_i 1 1' (Nadeau and Bengio), as in joint.stan.  So the
// contrasts follow joint.stan's model with
//
//   Omega_i = C D_i C'
//
// and the population of the true contrasts theta_i, its priors and the integration of theta_i
// are those of joint.stan (joint_prior.stan).  The noise scales are drawn hierarchically, so that
// a model's scale on one data set borrows strength from the same model elsewhere and from the
// other models there:
//
//   log sigma_im = log s_i + lambda_i + r_im - 1/2 log(mean_m' exp(2 r_im'))
//   r_im = kappa_m + omega eta_im                  (mean over the models run on data set i)
//   eta_i = C' eta_raw_i,  eta_raw_i ~ N(0, I)     (per data set, summing to 0, exchangeable)
//   kappa = C' kappa_raw,  kappa_raw ~ N(0, I)     (model effects, the same)
//   omega ~ half-N(0, 1),  p(lambda_i) = 1
//
// so lambda_i is the log of data set i's root mean square sigma_im (relative to s_i): with eta_i
// free to move their mean, lambda_i and eta_i would share a flat direction held only by the
// prior.  The root mean square, rather than the mean of the logs, is the level the contrasts
// measure best (all of it with two models, whose contrast has the variance sigma_i1^2 +
// sigma_i2^2): with the mean of the logs, moving the split between the models along that
// likelihood ridge also moved lambda_i, a curved ridge that made the sampler diverge.  Under the
// flat prior of lambda_i the two definitions are the same model (for fixed r_i they differ by a
// shift of lambda_i); the calibration prior states lambda_i's normal prior on the root mean
// square level.  s_i is a data-based level (the root mean variance of the data set's contrasts; only the
// sampler's coordinate of the flat lambda_i depends on it).  A proper prior on the model-level
// spreads is needed: with contrasts only, sigma_im -> 0 leaves the likelihood finite (the fold
// term u_ij absorbs that model's noise), so a flat prior on log sigma_im would be improper.
// (calibration_prior = 1: lambda_i ~ N(0, noise_level_prior_sd^2) and s_i = 1.)
//
// omega is sampled as a signed coordinate noise_spread on the whole line, omega = |noise_spread|,
// with N(0, 1) on it (the half-normal on omega): the model depends on it and on eta_i only
// through noise_spread * eta_i, which (noise_spread, eta) and (-noise_spread, -eta) share, so
// the two mirror images are the same model and the reported omega is |noise_spread|.  On the
// log scale of a positive omega, the models' scales hold omega at the top by all q k of them
// at once (the curvature grows with omega^2 times the q k eta_im^2) while its bottom, down to
// omega = 0 when the models' noise is alike, is held by the prior only: a wall next to a long
// tail, where the sampler diverged (16 models x 132 data sets x 4 folds of equal noise: 26
// divergent transitions of 4000, 24 of them above omega's 75th percentile; none on the line).
// On the signed line that likelihood is close to quadratic and omega = 0 is an interior point.
//
// Likelihood from sufficient statistics, O(k^2) per data set.  For the k_i models run on data
// set i (their orthonormal contrasts C_i, m = k_i - 1 rows), with w_m = 1 / sigma_im^2 and
// W = sum_m w_m, P = D^-1 - w w' / W satisfies P 1 = 0 and C_i' (C_i D C_i')^-1 C_i = P, so
//
//   tr(Omega_i^-1 S_i) = tr(P T_i) = sum_m w_m T_mm - w' T_i w / W,
//   log |Omega_i| = sum_m log sigma_im^2 + log W - log k_i,
//
// T_i = sum_j (x_ij - xbar_i)(x_ij - xbar_i)' the scatter of the scores themselves (k x k) and
// S_i = C_i T_i C_i' that of the contrasts.  The mean part is joint.stan's normal density of
// ybar_i with Omega_i = B_i D_i B_i' (B_i = C_i E_i, E_i selecting the models run).
//
// The model block computes this for all data sets at once, so that a gradient creates few
// autodiff nodes (at 16 models x 132 data sets x 4 folds a gradient took 2.5 ms of CPU, one data set
// at a time, and 1.4 ms this way, with the same log density and gradient to 1e-11; the roots of
// the T_i and multi_normal_lpdf below took another 13 % off a leapfrog step, measured as two
// single-chain runs side by side, one per core, in three rounds):
//  * the sigma_im, weights and Wishart part as q x k matrices; w' T_i w / a_i = |R_i w|^2
//    with R_i the rows sqrt(lambda / a_i) v' of the eigenpairs of T_i with lambda > 0 (at most
//    n_i - 1 of them), all the R_i stacked into one matrix and multiplied row by row by the w_i
//    (at 4 folds and 16 models, 3 rows of 16 per data set instead of the 256 entries of T_i);
//  * for a complete data set, Cov(ybar_i) = Sigma0 / tau_i + (b_i / n_i) C D_i C' = M_i / t_i
//    with t_i = tau_i / g (the sampler's Sigma0 / g, joint_prior.stan) and
//    M_i = Sigma0 / g + t_i (b_i / n_i) C D_i C'.  For the Helmert contrasts (row j = 1..d:
//    -a_j on the first j models, j a_j on model j + 1, a_j = 1 / sqrt(j (j + 1))) and D = diag(v),
//      (C D C')_jl = g_min(j,l) a_max(j,l) (j != l),   (C D C')_jj = h_j,
//      g_j = a_j (sum_{m <= j} v_m - j v_{j+1}),   h_j = a_j^2 (sum_{m <= j} v_m + j^2 v_{j+1}),
//    so every entry of the lower triangle of M_i is an entry of Sigma0 / g plus a constant times
//    one of the 2d numbers [g, h] (one q x k by k x 2d product for all data sets): one sparse
//    map gives the lower triangles of all the M_i (their upper triangles repeat those entries,
//    so every M_i is exactly symmetric), and
//      log N(ybar_i | theta0, M_i / t_i)
//        = d/2 log t_i + log N(sqrt(t_i) (ybar_i - theta0) | 0, M_i)
//    by Stan's multi_normal_lpdf, whose derivative in M_i is the closed form
//    (M^-1 r r' M^-1 - M^-1) / 2 from one factorisation of M_i's values (no autodiff through a
//    Cholesky factor and a triangular solve, a third of the gradient's time before);
//  * a data set with models missing (few, as a rule) keeps the per-data-set form.
//
// Translated with the Stan compiler's optimisation level --O1, which keeps a matrix of autodiff
// variables as one matrix of values and one of adjoints: a gradient at 16 models x 132 data sets
// x 4 folds costs about 1.2 times less (7.0 -> 5.8 ms of CPU, measured).  Both engines read the
// next line.
// stanc options: --O1
functions {
#include hierarchical_functions.stan
#include joint_functions.stan
}
data {
#include joint_data.stan
  array[q] matrix[k, k] model_scatter;             // T_i (zero rows/columns: models not run)
  array[q] matrix[k - 1, k] noise_contrasts;       // B_i = C_i E_i in the first observed[i] rows
  array[q] vector<lower=0, upper=1>[k] run;        // 1 for the models run on data set i, else 0
  vector[q] log_noise_level;                       // log s_i
  real<lower=0> noise_level_prior_sd;              // calibration prior of lambda_i
}
transformed data {
#include joint_transformed_data.stan
  vector[q] b_over_n = b ./ n_real;
  // The sampler's units of the noise coordinates (multipliers; the model is unchanged). Each is
  // about the posterior sd of its coordinate, so that the unit metric of early warm-up fits every
  // coordinate: lambda_i is measured by the (n_i - 1) observed[i] degrees of freedom of the
  // data set's scatter (sd about 1 / sqrt(2 (n_i - 1) observed[i])), kappa by all data sets
  // together (plus a spread of the models' scales across data sets of about 0.25 / sqrt(q)),
  // omega by the q d deviations eta_im.  With unit coordinates, the 16 x 132 x 4 study's first
  // 100 warm-up iterations took 50 000 leapfrog steps per chain (step size 0.01; sds 0.035 to
  // 0.1 against 1 for eta and tau), 45 % of the chain's work; with these units 4 600.
  vector[q] noise_level_scale = inv_sqrt(2 * (n_real - 1) .* to_vector(observed));
  real model_noise_scale = sqrt(1 / (1 + 2 * sum(n_real - 1)) + 0.0625 / q);
  real noise_spread_scale = inv_sqrt(1 + q * d / 2.0);
  // the k x (k - 1) map kappa = C' kappa_raw (orthonormal Helmert contrasts, as in Python)
  matrix[k, d] helmert_transpose = rep_matrix(0, k, d);
  for (j in 1:d) {
    for (m in 1:j) {
      helmert_transpose[m, j] = -1 / sqrt(j * (j + 1.0));
    }
    helmert_transpose[j + 1, j] = j / sqrt(j * (j + 1.0));
  }
  // ---- the data in the shapes of the vectorised likelihood (see the top of the file) ----
  matrix[q, k] run_matrix;                         // row i: run[i]'
  matrix[q, k] scatter_diagonal_over_a;            // row i: diagonal(T_i)' / a_i
  matrix[q, k] run_dof;                            // row i: (n_i - 1) run[i]'
  for (i in 1:q) {
    run_matrix[i] = run[i]';
    scatter_diagonal_over_a[i] = diagonal(model_scatter[i])' / a[i];
    run_dof[i] = (n_real[i] - 1) * run[i]';
  }
  vector[k] ones = rep_vector(1, k);
  vector[d] zero_d = rep_vector(0, d);
  vector[q] models_run = run_matrix * ones;
  vector[q] dof_times_models = (n_real - 1) .* models_run;
  // w' T_i w / a_i = |R_i w|^2, R_i = diag(sqrt(lambda / a_i)) V' from the eigenpairs of T_i with
  // lambda > 0 (at most min(n_i - 1, k_i) of them), the R_i stacked
  int root_rows = 0;
  array[q] vector[k] scatter_values;
  array[q] matrix[k, k] scatter_vectors;
  vector[q] root_cutoff;                           // 1e-12 of the largest eigenvalue: 0 below
  for (i in 1:q) {
    scatter_values[i] = eigenvalues_sym(model_scatter[i]);
    scatter_vectors[i] = eigenvectors_sym(model_scatter[i]);
    root_cutoff[i] = 1e-12 * max(scatter_values[i]);
    for (m in 1:k) {
      root_rows += scatter_values[i][m] > root_cutoff[i];
    }
  }
  matrix[root_rows, k] scatter_root;
  array[root_rows] int root_set;
  {
    int pos = 1;
    for (i in 1:q) {
      for (m in 1:k) {
        if (scatter_values[i][m] > root_cutoff[i]) {
          scatter_root[pos] = sqrt(scatter_values[i][m] / a[i]) * scatter_vectors[i][:, m]';
          root_set[pos] = i;
          pos += 1;
        }
      }
    }
  }
  // [g, h] = v' noise_split (k x 2d): the 2d numbers that make C diag(v) C'
  matrix[k, 2 * d] noise_split = rep_matrix(0, k, 2 * d);
  for (j in 1:d) {
    real a_j = inv_sqrt(j * (j + 1.0));
    for (m in 1:j) {
      noise_split[m, j] = a_j;
      noise_split[m, d + j] = square(a_j);
    }
    noise_split[j + 1, j] = -j * a_j;
    noise_split[j + 1, d + j] = square(j * a_j);
  }
  int complete_count = q - incomplete_count;
  // the lower triangles of the M_i of the complete data sets (each packed column by column,
  // d (d + 1) / 2 entries) as one sparse map of [the lower triangle of Sigma0 / g; the rows
  // [g, h] of every data set]: two non-zeros per entry
  int packed = (d * (d + 1)) %/% 2;
  array[d, d] int packed_index;                    // position of entry (j, l) (or (l, j))
  {
    int pos = 1;
    for (l in 1:d) {
      for (j in l:d) {
        packed_index[j, l] = pos;
        packed_index[l, j] = pos;
        pos += 1;
      }
    }
  }
  array[packed] int population_entries;            // vec(Sigma0 / g) positions of the packing
  array[complete_count, d * d] int unpack;         // vec(M_c) from the packed values
  for (l in 1:d) {
    for (j in 1:d) {
      population_entries[packed_index[j, l]] = (l - 1) * d + j;
      for (c in 1:complete_count) {
        unpack[c, (l - 1) * d + j] = (c - 1) * packed + packed_index[j, l];
      }
    }
  }
  vector[2 * complete_count * packed] cov_values;
  array[2 * complete_count * packed] int cov_columns;
  array[complete_count * packed + 1] int cov_rows;
  {
    int pos = 1;
    for (c in 1:complete_count) {
      int start = packed + (complete_sets[c] - 1) * 2 * d;
      for (l in 1:d) {
        for (j in l:d) {
          cov_rows[(c - 1) * packed + packed_index[j, l]] = pos;
          cov_values[pos] = 1;
          cov_columns[pos] = packed_index[j, l];
          if (j == l) {
            cov_values[pos + 1] = 1;
            cov_columns[pos + 1] = start + d + j;
          } else {
            cov_values[pos + 1] = inv_sqrt(j * (j + 1.0));
            cov_columns[pos + 1] = start + l;
          }
          pos += 2;
        }
      }
    }
    cov_rows[complete_count * packed + 1] = pos;
  }
  array[complete_count] vector[d] ybar_complete = ybar[complete_sets];
  // constants of the exact log likelihood of Y_i that the normal density of ybar_i leaves out,
  // with the -log k_i of log |Omega_i|
  real log_lik_constant = 0;
  for (i in 1:q) {
    log_lik_constant += -0.5 * observed[i] * ((n_real[i] - 1) * log(2 * pi() * a[i])
                                              + log(n_real[i]))
                        + 0.5 * (n_real[i] - 1) * log(observed[i] + 1);
  }
}
parameters {
#include joint_parameters.stan
  vector<multiplier=noise_level_scale>[q] noise_level;         // lambda_i
  vector<multiplier=model_noise_scale>[d] model_noise_raw;     // kappa = C' kappa_raw
  real<multiplier=noise_spread_scale> noise_spread;            // omega = |noise_spread|
  array[q] row_vector[d] noise_raw;                // eta_i = C' noise_raw_i'
#include joint_mixing_parameters.stan
}
transformed parameters {
#include joint_transformed_parameters.stan
}
model {
#include joint_prior.stan
  // exact densities, so that the log density can be checked; N(0, 1) on the signed coordinate
  // is the half-normal on omega = |noise_spread|
  target += std_normal_lpdf(model_noise_raw) + std_normal_lpdf(noise_spread)
            + std_normal_lpdf(to_vector(to_matrix(noise_raw)));
#include joint_population_calibration.stan
  if (calibration_prior) {
    target += normal_lpdf(noise_level | 0, noise_level_prior_sd);
  }
  {
    matrix[q, k] deviation = rep_matrix((helmert_transpose * model_noise_raw)', q)
                             + noise_spread * (to_matrix(noise_raw) * helmert_transpose');
    matrix[q, k] spread = exp(2 * deviation);
    // log sigma_im = level_i + deviation_im
    vector[q] level = log_noise_level + noise_level
                      - 0.5 * log((run_matrix .* spread) * ones ./ models_run);
    matrix[q, k] variance = diag_pre_multiply(exp(2 * level), spread);      // sigma_im^2
    matrix[q, k] w = run_matrix ./ variance;
    vector[q] total = w * ones;
    vector[root_rows] projected = rows_dot_product(scatter_root, w[root_set]);
    // Wishart part: -(n_i - 1)/2 log|Omega_i| - tr(Omega_i^-1 S_i) / (2 a_i), summed over i
    target += -sum(run_dof .* deviation) - dot_product(dof_times_models, level)
              - 0.5 * dot_product(n_real - 1, log(total))
              - 0.5 * sum(w .* scatter_diagonal_over_a)
              + 0.5 * dot_self(projected ./ sqrt(total[root_set]));
    // mean part: Cov(ybar_i) = M_i / t_i (see the top of the file)
    vector[q] tau_ratio = inv(inverse_tau);
    matrix[q, 2 * d] split = diag_pre_multiply(tau_ratio .* b_over_n, variance) * noise_split;
    if (complete_count > 0) {
      vector[complete_count * packed] lower_triangles = csr_matrix_times_vector(
        complete_count * packed, packed + 2 * d * q, cov_values, cov_columns, cov_rows,
        append_row(to_vector(population_cov)[population_entries], to_vector(split')));
      for (c in 1:complete_count) {
        int i = complete_sets[c];
        target += multi_normal_lpdf(sqrt(tau_ratio[i]) * (ybar_complete[c] - theta0) | zero_d,
                                    to_matrix(lower_triangles[unpack[c]], d, d))
                  + 0.5 * d * log(tau_ratio[i]);
      }
    }
    for (i in incomplete_sets) {
      int m = observed[i];
      matrix[m, k] root = diag_post_multiply(noise_contrasts[i][1:m], sqrt(variance[i]));
      matrix[m, m] noise_cov = b_over_n[i] * tcrossprod(root);
      matrix[m, d] M = design[i][1:m];
      matrix[m, m] population_part = quad_form_sym(population_cov, M');
      target += multi_normal_cholesky_lpdf(
                  ybar[i][1:m] | M * theta0,
                  cholesky_decompose(population_part * inverse_tau[i] + noise_cov));
    }
  }
  target += log_lik_constant;
}
