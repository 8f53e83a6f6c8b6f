  // ---- shared transformed data of the joint programs ----
  int d = k - 1;                                   // dimension of the contrasts
  int student = nu_prior != 2;                     // 1 when the population is Student-t
  vector[q] n_real = to_vector(n);
  vector[q] a = 1 - rho;                           // eigenvalue of R_i off 1
  vector[q] b = 1 + (n_real - 1) .* rho;           // eigenvalue of R_i on 1
  vector[d] ybar_mean = rep_vector(0, d);          // centre of theta0's parametrisation
  for (i in 1:q) {
    ybar_mean += ybar[i] / q;
  }
