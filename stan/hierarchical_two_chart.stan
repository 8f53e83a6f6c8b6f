// The hierarchical model of hierarchical.stan (Corani et al., 2017), sampled in other
// coordinates: sigma_i and tau_i are integrated out in closed form, and the true difference
// delta_i of each data set is sampled through two charts glued by a partition of unity.
//
// Why: with few folds (n_i = 2..9) the posterior of a data set whose mean is far from the others
// and precisely known is bimodal.  Its mean is explained either by the population's tail
// (delta_i near xbar_i, tau_i small) or by noise (delta_i near delta0, sigma_i large), and no
// trajectory of hierarchical.stan crosses the valley between the two.  Here both explanations
// sit at the same point of the sampler's space.
//
// Integrating sigma_i ~ U(0, sigma_upper) out of the equicorrelated normal likelihood
// (hierarchical.stan), with Q_i(delta) = SS_i / a_i + n_i (xbar_i - delta)^2 / b_i and
// h_i = (n_i - 1) / 2:
//
//   L_i(delta) = (1 / sigma_upper) (2 pi)^(-n_i/2) a_i^(-(n_i-1)/2) b_i^(-1/2)
//                2^(h_i - 1) Gamma(h_i) Q_i^(-h_i) Q(h_i, Q_i / (2 sigma_upper^2))
//
// with Q(h, x) the regularised upper incomplete gamma function; integrating tau_i ~
// Gamma(nu/2, nu/2) out of the population gives the Student-t density P(delta | delta0, sigma0,
// nu).  The marginal likelihood of data set i is the integral of f_i = L_i P over delta.
//
// Two charts map the sampler's u_i to delta: A, delta = xbar_i + se_i u_i (the data's own
// scale; se_i the standard error of xbar_i), and B, delta = delta0 + sigma0 u_i (the
// population's).  With weights w_A + w_B = 1 at every delta, the density
//
//   p(u_i) = w_A(delta_A(u_i)) f_i(delta_A(u_i)) se_i + w_B(delta_B(u_i)) f_i(delta_B(u_i)) sigma0
//
// integrates to the integral of f_i (change of variables in each term): the posterior of the
// hyper-parameters is exactly the model's.  Given u_i, delta_i is delta_A or delta_B with
// probabilities proportional to the two terms; then sigma_i and tau_i come from their
// conditionals (bayes_hier/hierarchical/two_chart.py).  The weights are
// w_A = logit^-1(c (log g_A - log g_B)) with Cauchy kernels g_A (at xbar_i, scale se_i) and g_B
// (at delta0, scale sigma0) and c = chart_sharpness: each chart carries the mode near its own
// centre, and c = 3 makes a chart's share of the other chart's mode negligible (its weight
// there is the cube of the ratio of the two scales).  Constants that depend on the data only
// (1 / sigma_upper per data set) are left out, as hierarchical.stan leaves them out.
functions {
#include hierarchical_functions.stan
#include log_gamma_q.stan
}
data {
#include hierarchical_data.stan
  vector[q] xbar;                                  // mean of the differences of data set i
  vector<lower=0>[q] ss;                           // sum of squared deviations from xbar_i
  real<lower=0> chart_sharpness;                   // c of the weights of the two charts
}
transformed data {
#include hierarchical_transformed_data.stan
  vector[q] n_real = to_vector(n);
  vector[q] a = 1 - rho;
  vector[q] b = 1 + (n_real - 1) .* rho;
  vector[q] ss_over_a = ss ./ a;
  vector[q] n_over_b = n_real ./ b;
  vector[q] half_dof = 0.5 * (n_real - 1);
  vector[q] lgamma_h_plus_one = lgamma(half_dof + 1);
  vector[q] se = sqrt(ss_over_a ./ (n_over_b .* (n_real - 1)));  // sd of xbar_i, estimated
  vector[q] log_se = log(se);
  real two_upper_sq = 2 * square(sigma_upper);
  real log_lik_constant = sum(-0.5 * n_real * log(2 * pi()) - 0.5 * ((n_real - 1) .* log(a) + log(b))
                              + lgamma(half_dof) + (half_dof - 1) * log(2));
  // chart A: Q_i(xbar_i + se_i u) = SS_i / a_i (1 + u^2 / (n_i - 1))
  vector[q] chart_a_factor = inv(n_real - 1);
}
parameters {
  real delta0_raw;
  real<lower=0, upper=sigma0_upper> sigma0;
  array[nu_prior == 0] real<lower=alpha_lower, upper=alpha_upper> nu_alpha;
  array[nu_prior == 0] real<lower=beta_lower, upper=beta_upper> nu_beta;
  vector[student] nu_raw;
  vector[q] u;                             // each data set's coordinate in both charts
}
transformed parameters {
#include hierarchical_transformed_parameters.stan
}
model {
#include hierarchical_hyperprior.stan
  real log_sigma0 = log(sigma0);
  vector[q] u_sq = square(u);
  vector[q] delta_b = delta0 + sigma0 * u;
  vector[q] z_a = (xbar + se .* u - delta0) / sigma0;  // chart A's delta, standardised
  vector[q] t_b = (delta_b - xbar) ./ se;              // chart B's delta in se_i units
  vector[q] q_a = ss_over_a .* (1 + u_sq .* chart_a_factor);
  vector[q] q_b = ss_over_a + n_over_b .* square(xbar - delta_b);
  vector[q] log_lik_a = -half_dof .* log(q_a)
                        + log_gamma_q(half_dof, q_a / two_upper_sq, lgamma_h_plus_one);
  vector[q] log_lik_b = -half_dof .* log(q_b)
                        + log_gamma_q(half_dof, q_b / two_upper_sq, lgamma_h_plus_one);
  vector[q] log_population_a;
  vector[q] log_population_b;
  if (student) {
    real c = lgamma(0.5 * (nu + 1)) - lgamma(0.5 * nu) - 0.5 * log(nu * pi()) - log_sigma0;
    log_population_a = c - 0.5 * (nu + 1) * log1p(square(z_a) / nu);
    log_population_b = c - 0.5 * (nu + 1) * log1p(u_sq / nu);
  } else {
    log_population_a = -0.5 * log(2 * pi()) - log_sigma0 - 0.5 * square(z_a);
    log_population_b = -0.5 * log(2 * pi()) - log_sigma0 - 0.5 * u_sq;
  }
  // c (log g_A - log g_B) at each chart's delta; log w_A = log logit^-1(d), log w_B = log logit^-1(-d)
  vector[q] d_a = chart_sharpness * (log_sigma0 - log_se - log1p(u_sq) + log1p(square(z_a)));
  vector[q] d_b = chart_sharpness * (log_sigma0 - log_se - log1p(square(t_b)) + log1p(u_sq));
  vector[q] term_a = log_inv_logit(d_a) + log_lik_a + log_population_a + log_se;
  vector[q] term_b = log_inv_logit(-d_b) + log_lik_b + log_population_b + log_sigma0;
  target += log_lik_constant + sum(term_a + log1p_exp(term_b - term_a));
}
