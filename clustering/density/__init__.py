"""Density clustering: HDBSCAN behind the clusterer interface."""
