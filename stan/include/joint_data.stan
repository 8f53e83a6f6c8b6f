  // ---- shared data block of the joint programs ----
  // All quantities are in rescaled units: scores and rope divided by the data's scale.
  int<lower=2> k;                                  // number of models
  int<lower=1> q;                                  // number of data sets
  array[q] int<lower=2> n;                         // folds (cross-validation results) per data set
  vector<lower=0, upper=1>[q] rho;                 // fold correlation per data set, 0 < rho < 1
  array[q] vector[k - 1] ybar;                     // mean of the Helmert contrasts of data set i
  // Models missing on some data sets.  Data set i with k_i of the k models has
  // observed[i] = k_i - 1 contrasts of its own (orthonormal Helmert contrasts C_i of those models);
  // ybar[i] then holds them in its first observed[i] entries, padded with zeros (and so do the
  // noise statistics of each program), and design[i] holds
  // M_i = C_i E_i C' (E_i selects the observed models) in its first observed[i] rows, zeros after:
  // E[ybar_i | theta_i] = M_i theta_i.  A complete data set has observed[i] = k - 1, M_i = I.
  array[q] int<lower=1, upper=k - 1> observed;
  array[q] matrix[k - 1, k - 1] design;
  cholesky_factor_cov[k - 1] population_basis;     // A0: Sigma0 = g A0 L0 L0' A0'
  // prior of Sigma0 in the basis A0 (joint_prior.stan): LKJ(population_corr_shape) on its
  // correlation, half-normal(0, population_sd_scale) on its standard deviations
  real<lower=0> population_corr_shape;
  real<lower=0> population_sd_scale;
  // prior on the degrees of freedom nu = 1 + nu_minus_one (as in hierarchical_data.stan):
  //   0 = hierarchical, 1 = fixed Gamma(nu_shape, nu_rate), 2 = gaussian population
  int<lower=0, upper=2> nu_prior;
  real<lower=0> nu_shape;
  real<lower=0> nu_rate;
  real<lower=0> alpha_lower;
  real<lower=alpha_lower> alpha_upper;
  real<lower=0> beta_lower;
  real<lower=beta_lower> beta_upper;
  // calibration prior (off by default; for simulation-based calibration, which needs a proper
  // prior to draw from: theta0 is flat by default).  With calibration_prior = 1 these densities
  // REPLACE the default priors of theta0 and Sigma0, in the rescaled units above:
  //   theta0 ~ N(0, theta0_prior_sd^2 I)
  //   Sigma0 ~ InvWishart(population_prior_df, population_prior_scale)
  // and each program replaces the prior of its noise parameters (its own data fields).
  // The prior of nu and tau_i is unchanged.  The values are ignored when calibration_prior = 0.
  int<lower=0, upper=1> calibration_prior;
  real<lower=0> theta0_prior_sd;
  real population_prior_df;
  cov_matrix[k - 1] population_prior_scale;
