  // ---- shared transformed data of the joint programs ----
  int d = k - 1;                                   // dimension of the contrasts
  int student = nu_prior != 2;                     // 1 when the population is Student-t
  vector[q] n_real = to_vector(n);
  vector[q] a = 1 - rho;                           // eigenvalue of R_i off 1
  vector[q] b = 1 + (n_real - 1) .* rho;           // eigenvalue of R_i on 1
  real theta0_scale = 1 / sqrt(q);                // sampler's scale of theta0_raw
  // data sets with every model (the original code path) and with some model missing
  int incomplete_count = 0;
  for (i in 1:q) {
    incomplete_count += observed[i] < d;
  }
  array[q - incomplete_count] int complete_sets;
  array[incomplete_count] int incomplete_sets;
  {
    int c = 0;
    int m = 0;
    for (i in 1:q) {
      if (observed[i] == d) {
        c += 1;
        complete_sets[c] = i;
      } else {
        m += 1;
        incomplete_sets[m] = i;
      }
    }
  }
  // centre of theta0's parametrisation: the least-squares theta of the ybar_i,
  // (sum_i M_i' M_i)^-1 sum_i M_i' ybar_i (the mean of the ybar_i when every M_i = I)
  vector[d] ybar_mean;
  {
    matrix[d, d] gram = rep_matrix(0, d, d);
    vector[d] moment = rep_vector(0, d);
    for (i in 1:q) {
      gram += crossprod(design[i]);
      moment += design[i]' * ybar[i];
    }
    ybar_mean = mdivide_left_spd(gram, moment);
  }
