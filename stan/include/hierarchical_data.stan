  // ---- shared data block of the hierarchical programs (Corani et al., 2017) ----
  // All quantities are in rescaled units: differences and rope divided by mean_i(s_i).
  int<lower=1> q;                                  // number of data sets
  array[q] int<lower=2> n;                         // cross-validation results per data set
  vector<lower=0, upper=1>[q] rho;                 // fold correlation per data set, 0 < rho < 1
  real<lower=0> sigma_upper;                       // sigma_i ~ Uniform(0, sigma_upper)
  real<lower=0> sigma0_upper;                      // sigma0 ~ Uniform(0, sigma0_upper)
  real<lower=0> delta0_bound;                      // delta0 ~ Uniform(-delta0_bound, delta0_bound)
  // where the posterior of delta0 is expected (mean of the xbar_i) and its spread (sd(xbar) /
  // sqrt(q)): they only standardise the sampler's coordinate of delta0
  // (hierarchical_transformed_data.stan), the posterior does not depend on them
  real delta0_centre;
  real<lower=0> delta0_spread;
  // prior on the degrees of freedom nu = 1 + nu_minus_one:
  //   0 = hierarchical: nu_minus_one ~ Gamma(alpha, beta), alpha ~ U(alpha_lower, alpha_upper),
  //                     beta ~ U(beta_lower, beta_upper)
  //   1 = fixed:        nu_minus_one ~ Gamma(nu_shape, nu_rate)
  //   2 = gaussian:     the population of true differences is normal (nu -> infinity)
  int<lower=0, upper=2> nu_prior;
  real<lower=0> nu_shape;                          // used when nu_prior == 1
  real<lower=0> nu_rate;                           // used when nu_prior == 1
  real<lower=0> alpha_lower;
  real<lower=alpha_lower> alpha_upper;
  real<lower=0> beta_lower;
  real<lower=beta_lower> beta_upper;
