  // ---- shared functions of the joint programs ----
  // log p(L) for a d x d Cholesky factor L of M = L L' when p(M) ~ |M|^(-1/2): the density
  // |M|^(-1/2) = prod_j L_jj^-1 times the Jacobian of M -> L, 2^d prod_j L_jj^(d - j + 1),
  // without the constant 2^d.  At d = 1 it is 0: the uniform prior on L = sqrt(M).
  real invariant_cholesky_log_prior(matrix L) {
    int d = rows(L);
    return dot_product(d - linspaced_vector(d, 1, d), log(diagonal(L)));
  }
  // What to add to invariant_cholesky_log_prior(L) so that M = L L' (in any fixed basis) has the
  // inverse Wishart density instead of |M|^(-1/2): log InvWishart(M | df, scale) + 1/2 log|M|.
  // The Jacobian of M -> L stays in invariant_cholesky_log_prior.
  real inverse_wishart_replacement(matrix M, real df, matrix scale) {
    return inv_wishart_lpdf(M | df, scale) + 0.5 * log_determinant(M);
  }
  // log Jacobian of (s, L_R) -> diag(s) L_R, with s > 0 standard deviations and L_R the Cholesky
  // factor of a correlation matrix in Stan's coordinates (its free entries below the diagonal):
  // row j of diag(s) L_R is s_j times a unit vector with last entry L_R[j, j], so the Jacobian is
  // prod_j s_j^(j - 1) / L_R[j, j].
  real scale_correlation_log_jacobian(vector s, matrix L) {
    int d = rows(L);
    return dot_product(linspaced_vector(d, 0, d - 1), log(s)) - sum(log(diagonal(L)));
  }
