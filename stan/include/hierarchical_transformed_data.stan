  // ---- shared transformed data of the hierarchical programs ----
  vector[q] is_noncentered = to_vector(noncentered);
  vector[q] is_centered = 1 - is_noncentered;
