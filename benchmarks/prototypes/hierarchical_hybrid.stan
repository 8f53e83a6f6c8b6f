// Exploration, not part of the package (run by benchmarks/hybrid_prototype.py; results in
// benchmarks/FEW_FOLD.md): the model of hierarchical.stan, whose scale-mixture coordinates are
// sampled for the q "shallow" data sets, while each of the qd "deep" data sets (a deep valley
// between its two explanations) adds the log of its marginal likelihood
//   integral of L_i(delta) P(delta | delta0, sigma0, nu) d delta
// (sigma_i and tau_i integrated out in closed form, as in hierarchical_two_chart.stan), by
// Gauss-Legendre nodes v_k in the Cauchy-quantile variable u = tan(pi (v - 1/2)) of two charts,
// A: delta = xbar_i + se_i u and B: delta = delta0 + sigma0 u, each weighted by
// g_own^c / (g_A^c + g_B^c) (g Cauchy kernels, c = chart_power), so that
//   integral f = sum over charts of sum_k w_k f(delta(u_k)) weight(delta(u_k)) pi scale (1 + u_k^2).
// The factor pi and the data's constants are left out (constant).
functions {
#include hierarchical_functions.stan
  vector log_add_exp(vector x, vector y) {
    return fmax(x, y) + log1p_exp(-abs(x - y));
  }
#include log_gamma_q.stan
}
data {
#include hierarchical_data.stan
  vector[q] xbar;
  vector<lower=0>[q] ss;
  int<lower=0> qd;                       // deep data sets
  vector[qd] n_d;
  vector[qd] rho_d;
  vector[qd] xbar_d;
  vector[qd] ss_d;
  int<lower=1> nodes;
  vector[nodes] node_u;                  // tan(pi (v_k - 1/2)), v_k Gauss-Legendre on (0, 1)
  vector[nodes] node_log_w;              // log of the Gauss-Legendre weights on (0, 1)
  real chart_power;                      // c
}
transformed data {
#include hierarchical_transformed_data.stan
  vector[q] n_real = to_vector(n);
  vector[q] a = 1 - rho;
  vector[q] b = 1 + (n_real - 1) .* rho;
  vector[q] ss_over_a = ss ./ a;
  vector[q] b_over_n = b ./ n_real;
  real log_lik_constant = -0.5 * sum((n_real - 1) .* log(2 * pi() * a) + log(n_real));
  // deep data sets
  vector[qd] ss_over_a_d = ss_d ./ (1 - rho_d);
  vector[qd] n_over_b_d = n_d ./ (1 + (n_d - 1) .* rho_d);
  vector[qd] half_dof = 0.5 * (n_d - 1);
  vector[qd] lgamma_h1 = lgamma(half_dof + 1);
  vector[qd] se_d = sqrt(ss_over_a_d ./ (n_over_b_d .* (n_d - 1)));
  real two_upper_sq = 2 * square(sigma_upper);
  vector[nodes] node_u_sq = square(node_u);
  vector[nodes] log1p_u_sq = log1p(node_u_sq);
  // chart A is fixed: delta = xbar + se u_k
  array[qd] vector[nodes] delta_a;
  array[qd] vector[nodes] fixed_a;             // log L_i(delta_a) - log g_A(delta_a) + log w_k (up to pi)
  for (j in 1:qd) {
    delta_a[j] = xbar_d[j] + se_d[j] * node_u;
    vector[nodes] qa = ss_over_a_d[j] * (1 + node_u_sq / (n_d[j] - 1));
    fixed_a[j] = (-half_dof[j] * log(qa)
                  + log_gamma_q(rep_vector(half_dof[j], nodes), qa / two_upper_sq,
                                rep_vector(lgamma_h1[j], nodes))
                  + log(se_d[j]) + log1p_u_sq + node_log_w);
  }
  vector[qd] log_se_d = log(se_d);
  real deep_constant = sum(-0.5 * n_d * log(2 * pi())
                           - 0.5 * ((n_d - 1) .* log(1 - rho_d) + log(1 + (n_d - 1) .* rho_d))
                           + lgamma(half_dof) + (half_dof - 1) * log(2));
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
  if (qd > 0) {
    real log_sigma0 = log(sigma0);
    real c_t = student ? lgamma(0.5 * (nu + 1)) - lgamma(0.5 * nu) - 0.5 * log(nu * pi()) : -0.5 * log(2 * pi());
    // chart B's population term is the same for every data set
    vector[nodes] pop_b = student ? c_t - 0.5 * (nu + 1) * log1p(node_u_sq / nu) : c_t - 0.5 * node_u_sq;
    for (j in 1:qd) {
      // chart A
      vector[nodes] z_a = (delta_a[j] - delta0) / sigma0;
      vector[nodes] pop_a = student ? c_t - 0.5 * (nu + 1) * log1p(square(z_a) / nu) : c_t - 0.5 * square(z_a);
      vector[nodes] lga = -log_se_d[j] - log1p_u_sq;                   // log g_A (no pi)
      vector[nodes] lgb_a = -log_sigma0 - log1p(square(z_a));          // log g_B at chart A's delta
      vector[nodes] term_a = fixed_a[j] + pop_a - log_sigma0
                             + chart_power * lga
                             - log_add_exp(chart_power * lga, chart_power * lgb_a);
      // chart B
      vector[nodes] delta_b = delta0 + sigma0 * node_u;
      vector[nodes] qb = ss_over_a_d[j] + n_over_b_d[j] * square(xbar_d[j] - delta_b);
      vector[nodes] lik_b = -half_dof[j] * log(qb)
                            + log_gamma_q(rep_vector(half_dof[j], nodes), qb / two_upper_sq,
                                          rep_vector(lgamma_h1[j], nodes));
      vector[nodes] lgb = -log_sigma0 - log1p_u_sq;
      vector[nodes] lga_b = -log_se_d[j] - log1p(square((delta_b - xbar_d[j]) / se_d[j]));
      // the population density at delta_b is exp(pop_b) / sigma0, the chart's Jacobian sigma0
      vector[nodes] term_b = lik_b + pop_b + log1p_u_sq + node_log_w
                             + chart_power * lgb - log_add_exp(chart_power * lga_b, chart_power * lgb);
      target += log_sum_exp(append_row(term_a, term_b));
    }
    target += deep_constant;
  }
}
