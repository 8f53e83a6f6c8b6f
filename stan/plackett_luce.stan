// Bayesian Plackett-Luce model of k algorithms ranked on many problem instances (Calvo, Ceberio
// and Lozano, GECCO 2018), with a Dirichlet prior on the weights.
//
// Ranking s orders size[s] of the K algorithms, best first: order[s, 1:size[s]] (a data set
// where some algorithms were not run ranks the others; the rest of the row is padding). With
// weights w on the simplex, P(ranking s) = prod_i w[o_i] / (w[o_i] + ... + w[o_size]).
// Prior: w ~ Dirichlet(concentration).
// Computed as sum_a m_a log w_a - sum_r log(sum_{a in S_r} w_a): m_a counts the rankings in which a
// is placed above the last position, and the S_r are the sets still to be ranked before each
// such placement (rows of the 0/1 matrix "remaining"), so that the likelihood is one
// matrix-vector product.
data {
  int<lower=2> K;
  int<lower=0> N;
  array[N] int<lower=2, upper=K> size;
  array[N, K] int<lower=1, upper=K> order;
  vector<lower=0>[K] concentration;
}
transformed data {
  int R = sum(size) - N;
  matrix[R, K] remaining = rep_matrix(0, R, K);
  vector[K] placed = rep_vector(0, K);
  {
    int r = 0;
    for (s in 1:N) {
      for (i in 1:(size[s] - 1)) {
        r += 1;
        placed[order[s, i]] += 1;
        for (j in i:size[s]) {
          remaining[r, order[s, j]] = 1;
        }
      }
    }
  }
}
parameters {
  simplex[K] w;
}
model {
  target += dirichlet_lpdf(w | concentration);
  target += dot_product(placed, log(w)) - sum(log(remaining * w));
}
