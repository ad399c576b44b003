"""Dimensionality reduction (none, PCA, t-SNE, UMAP) and standardisation of the map."""
