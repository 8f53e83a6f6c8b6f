// Bayesian Plackett-Luce model of k algorithms ranked on many problem instances (Calvo, Ceberio
// and Lozano, GECCO 2018), with a Dirichlet prior on the weights.
//
// Ranking s orders size[s] of the K algorithms, best first: order[s, 1:size[s]] (a data set
// where some algorithms were not run ranks the others; the rest of the row is padding). With
// weights w on the simplex, P(ranking s) = prod_i w[o_i] / (w[o_i] + ... + w[o_size]).
// Prior: w ~ Dirichlet(concentration).
// Computed as sum_a m_a log w_a - sum_r log(t_r): m_a counts the rankings in which a is placed
// above the last position, and t_r are the sums of the weights still to be ranked before each
// such placement, accumulated from the end of each ranking (O(size) per ranking).
data {
  int<lower=2> K;
  int<lower=0> N;
  array[N] int<lower=2, upper=K> size;
  array[N, K] int<lower=1, upper=K> order;
  vector<lower=0>[K] concentration;
}
transformed data {
  int R = sum(size) - N;
  vector[K] placed = rep_vector(0, K);
  for (s in 1:N) {
    for (i in 1:(size[s] - 1)) {
      placed[order[s, i]] += 1;
    }
  }
}
parameters {
  simplex[K] w;
}
model {
  vector[R] tails;
  int r = 0;
  for (s in 1:N) {
    real tail = w[order[s, size[s]]];
    for (i in 1:(size[s] - 1)) {
      r += 1;
      tail += w[order[s, size[s] - i]];
      tails[r] = tail;
    }
  }
  target += dirichlet_lpdf(w | concentration);
  target += dot_product(placed, log(w)) - sum(log(tails));
}
