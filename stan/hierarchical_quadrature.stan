// The hierarchical model of hierarchical.stan (Corani et al., 2017), with the "deep" data sets
// integrated out by quadrature instead of sampled.
//
// Why: with few folds (n_i = 2..9) a data set whose mean is precise and far from the others
// makes the posterior bimodal: its mean is explained either by the population's tail (delta_i
// near xbar_i, tau_i small) or by noise (delta_i near delta0, sigma_i large), with a valley
// between the two that the chains of hierarchical.stan do not cross.  Here the q data sets
// without such a valley are sampled as in hierarchical.stan (scale mixture, delta_i integrated
// out in closed form, sigma_i and the standardised log tau_i sampled), and each of the qd deep
// data sets adds the log of its marginal likelihood
//
//   m_j = integral of L_j(delta) P(delta | delta0, sigma0, nu) d delta,
//
// where L_j(delta) is its likelihood with sigma_j integrated out in closed form (as in
// hierarchical_two_chart.stan; Q_j(delta) = SS_j / a_j + n_j (xbar_j - delta)^2 / b_j,
// h_j = (n_j - 1) / 2):
//
//   L_j(delta) = (2 pi)^(-n_j/2) a_j^(-(n_j-1)/2) b_j^(-1/2) 2^(h_j - 1) Gamma(h_j)
//                Q_j^(-h_j) Q(h_j, Q_j / (2 sigma_upper^2))          (times 1 / sigma_upper)
//
// and P the Student-t (or normal) population density.  The sampler then never meets the two
// explanations of a deep data set: the hyper-parameters' posterior is the model's, up to the
// quadrature's error.
//
// The quadrature uses the two charts of hierarchical_two_chart.stan, A: delta = xbar_j + se_j u
// and B: delta = delta0 + sigma0 u, with weights w_A + w_B = 1, w_A = g_A^c / (g_A^c + g_B^c)
// (g Cauchy kernels at the charts' centres and scales, c = chart_sharpness), so that
//
//   m_j = sum over the charts of integral of w(delta(u)) f_j(delta(u)) scale du,
//
// f_j = L_j P.  Each chart's integral runs over the Cauchy-quantile variable v in (0, 1),
// u = tan(pi (v - 1/2)), du = pi (1 + u^2) dv, by Gauss-Legendre nodes v_k with weights w_k:
// both of a deep data set's explanations sit near the centre of one chart each.  Chart A's
// nodes do not move, so its likelihood terms are computed once.  Constants that depend on the
// data only (1 / sigma_upper per data set) are left out, as hierarchical.stan leaves them out.
functions {
#include hierarchical_functions.stan
#include log_gamma_q.stan
  // log(exp(x) + exp(y)), elementwise
  vector log_add_exp(vector x, vector y) {
    return fmax(x, y) + log1p_exp(-abs(x - y));
  }
}
data {
#include hierarchical_data.stan
  vector[q] xbar;                                  // mean of the differences of data set i
  vector<lower=0>[q] ss;                           // sum of squared deviations from xbar_i
  int<lower=0> qd;                                 // deep data sets, integrated out
  vector<lower=2>[qd] n_deep;
  vector<lower=0, upper=1>[qd] rho_deep;
  vector[qd] xbar_deep;
  vector<lower=0>[qd] ss_deep;
  int<lower=1> nodes;                              // Gauss-Legendre nodes per chart
  vector[nodes] node_u;                            // tan(pi (v_k - 1/2))
  vector[nodes] node_log_weight;                   // log w_k, the weights on (0, 1)
  real<lower=0> chart_sharpness;                   // c of the charts' weights
}
transformed data {
#include hierarchical_transformed_data.stan
  vector[q] n_real = to_vector(n);
  vector[q] a = 1 - rho;
  vector[q] b = 1 + (n_real - 1) .* rho;
  vector[q] ss_over_a = ss ./ a;
  vector[q] b_over_n = b ./ n_real;
  // what the normal density of xbar_i leaves out of the exact marginal log likelihood
  real log_lik_constant = -0.5 * sum((n_real - 1) .* log(2 * pi() * a) + log(n_real));
  // the deep data sets
  vector[qd] a_deep = 1 - rho_deep;
  vector[qd] b_deep = 1 + (n_deep - 1) .* rho_deep;
  vector[qd] ss_over_a_deep = ss_deep ./ a_deep;
  vector[qd] n_over_b_deep = n_deep ./ b_deep;
  vector[qd] half_dof = 0.5 * (n_deep - 1);
  vector[qd] lgamma_h_plus_one = lgamma(half_dof + 1);
  vector[qd] se_deep = sqrt(ss_over_a_deep ./ (n_over_b_deep .* (n_deep - 1)));
  vector[qd] log_se_deep = log(se_deep);
  real two_upper_sq = 2 * square(sigma_upper);
  vector[nodes] node_u_sq = square(node_u);
  vector[nodes] log1p_node_u_sq = log1p(node_u_sq);
  // log pi, the data sets' constants and, per node, log(pi (1 + u_k^2) w_k)
  real deep_constant = qd * log(pi())
                       + sum(-0.5 * n_deep * log(2 * pi())
                             - 0.5 * ((n_deep - 1) .* log(a_deep) + log(b_deep))
                             + lgamma(half_dof) + (half_dof - 1) * log(2));
  vector[nodes] node_log_measure = log1p_node_u_sq + node_log_weight;
  // chart A: delta = xbar_j + se_j u_k, Q_j = SS_j / a_j (1 + u_k^2 / (n_j - 1)); its
  // log L_j + log se_j + log measure, and log g_A, do not move
  array[qd] vector[nodes] delta_a;
  array[qd] vector[nodes] fixed_a;
  vector[nodes] log_kernel_a_own = -log1p_node_u_sq;           // log g_A + log se_j
  for (j in 1:qd) {
    vector[nodes] quadratic = ss_over_a_deep[j] * (1 + node_u_sq / (n_deep[j] - 1));
    delta_a[j] = xbar_deep[j] + se_deep[j] * node_u;
    fixed_a[j] = -half_dof[j] * log(quadratic)
                 + log_gamma_q(rep_vector(half_dof[j], nodes), quadratic / two_upper_sq,
                               rep_vector(lgamma_h_plus_one[j], nodes))
                 + log_se_deep[j] + node_log_measure;
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
  vector[q] sigma_sq = square(sigma);
  target += log_lik_constant
            - 0.5 * dot_product(ss_over_a, inv(sigma_sq))
            - 0.5 * dot_product(n_real - 1, log(sigma_sq))
            + normal_lpdf(xbar | delta0, sqrt(population_variance + b_over_n .* sigma_sq));
  if (qd > 0) {
    real log_sigma0 = log(sigma0);
    // log P(delta | delta0, sigma0, nu) = log_density_constant - log sigma0 + kernel(z)
    real log_density_constant = student
                                ? lgamma(0.5 * (nu + 1)) - lgamma(0.5 * nu) - 0.5 * log(nu * pi())
                                : -0.5 * log(2 * pi());
    // chart B's nodes sit at the same z = u_k for every data set
    vector[nodes] population_b = log_density_constant
                                 + (student ? -0.5 * (nu + 1) * log1p(node_u_sq / nu)
                                            : -0.5 * node_u_sq);
    vector[nodes] delta_b = delta0 + sigma0 * node_u;
    for (j in 1:qd) {
      // chart A: log[w_A f_j se_j pi (1 + u_k^2) w_k]
      vector[nodes] z_a = (delta_a[j] - delta0) / sigma0;
      vector[nodes] population_a = log_density_constant - log_sigma0
                                   + (student ? -0.5 * (nu + 1) * log1p(square(z_a) / nu)
                                              : -0.5 * square(z_a));
      vector[nodes] sharp_a = chart_sharpness * log_kernel_a_own;                  // c log(g_A se_j)
      vector[nodes] sharp_b_at_a = chart_sharpness * (log_se_deep[j] - log_sigma0
                                                      - log1p(square(z_a)));     // c log(g_B se_j)
      vector[nodes] term_a = fixed_a[j] + population_a + sharp_a
                             - log_add_exp(sharp_a, sharp_b_at_a);
      // chart B: log[w_B f_j sigma0 pi (1 + u_k^2) w_k]
      vector[nodes] quadratic = ss_over_a_deep[j]
                                + n_over_b_deep[j] * square(xbar_deep[j] - delta_b);
      vector[nodes] likelihood_b = -half_dof[j] * log(quadratic)
                                   + log_gamma_q(rep_vector(half_dof[j], nodes),
                                                 quadratic / two_upper_sq,
                                                 rep_vector(lgamma_h_plus_one[j], nodes));
      vector[nodes] sharp_b = -chart_sharpness * log1p_node_u_sq;                 // c log(g_B sigma0)
      vector[nodes] sharp_a_at_b = chart_sharpness
                                   * (log_sigma0 - log_se_deep[j]
                                      - log1p(square((delta_b - xbar_deep[j]) / se_deep[j])));
      vector[nodes] term_b = likelihood_b + population_b + node_log_measure + sharp_b
                             - log_add_exp(sharp_a_at_b, sharp_b);
      target += log_sum_exp(append_row(term_a, term_b));
    }
    target += deep_constant;
  }
}
