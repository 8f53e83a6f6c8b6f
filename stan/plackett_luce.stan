// Bayesian Plackett-Luce model of k algorithms ranked on many problem instances (Calvo, Ceberio
// and Lozano, GECCO 2018), with a Dirichlet prior on the weights.
//
// Ranking s orders size[s] of the K algorithms, best first: order[s, 1:size[s]] (a data set
// where some algorithms were not run ranks the others; the rest of the row is padding). With
// weights w on the simplex, P(ranking s) = prod_i w[o_i] / (w[o_i] + ... + w[o_size]).
// Prior: w ~ Dirichlet(concentration).
data {
  int<lower=2> K;
  int<lower=0> N;
  array[N] int<lower=2, upper=K> size;
  array[N, K] int<lower=1, upper=K> order;
  vector<lower=0>[K] concentration;
}
parameters {
  simplex[K] w;
}
model {
  target += dirichlet_lpdf(w | concentration);
  for (s in 1:N) {
    vector[size[s]] ranked = w[order[s, 1:size[s]]];
    vector[size[s]] remaining = reverse(cumulative_sum(reverse(ranked)));
    target += sum(log(ranked)) - sum(log(remaining));
  }
}
