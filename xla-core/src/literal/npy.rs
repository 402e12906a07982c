//! Reading and writing `.npy` files.
