  // ---- shared transformed data of the hierarchical programs ----
  int student = nu_prior != 2;                     // 1 when the population is Student-t
