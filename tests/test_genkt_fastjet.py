"""GenKT at p = 0 without a cosine cut is FastJet's Cambridge/Aachen with pt-scheme.

FastJet's C/A has d_ij = dR^2 / R^2 and a beam distance d_iB = 1 for every object, so it
merges the closest pair while some pair has dR < R and then only sends objects to the beam:
its inclusive jets are exactly our final objects when nothing else differs. The pt_scheme
recombiner gives the merged object pt = pt_i + pt_j and the pt-weighted means of rapidity and
phi, which is our weighted recombination with weights = pt on coordinates (y, phi). All points
sit in one patch (|y| <= 2, 1 <= phi <= 2.5) so that phi never wraps.
"""

from __future__ import annotations

import numpy as np
import pytest

fj = pytest.importorskip("fastjet", reason="fastjet (PyPI, the dev extra) is not installed")

from memmaint.clustering.genkt.estimator import GenKTDefinition, genkt_cluster


def fastjet_labels(y, phi, pt, R):
    parts = []
    for i in range(len(pt)):
        mt = pt[i]  # massless
        p = fj.PseudoJet(pt[i] * np.cos(phi[i]), pt[i] * np.sin(phi[i]),
                         mt * np.sinh(y[i]), mt * np.cosh(y[i]))
        p.set_user_index(i)
        parts.append(p)
    cs = fj.ClusterSequence(parts, fj.JetDefinition(fj.cambridge_algorithm, R, fj.pt_scheme))
    labels = np.full(len(pt), -1)
    jets = cs.inclusive_jets()
    for k, jet in enumerate(jets):
        for c in jet.constituents():
            labels[c.user_index()] = k
    assert (labels >= 0).all()
    n_merges = len(pt) - len(jets)
    return labels, n_merges, jets


def canonical(labels):
    """Relabel in order of first appearance (our convention), so partitions compare as arrays."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty_like(first)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv]


@pytest.mark.parametrize("R", [0.2, 0.5, 1.0])
@pytest.mark.parametrize("n,seed", [(60, 0), (400, 1), (1500, 2)])
def test_same_jets_as_fastjet_cambridge_aachen(n, seed, R):
    rng = np.random.default_rng(seed)
    y = rng.uniform(-2.0, 2.0, n)
    phi = rng.uniform(1.0, 2.5, n)
    pt = rng.uniform(1.0, 100.0, n)
    want, fj_merges, jets = fastjet_labels(y, phi, pt, R)
    seq = genkt_cluster(np.column_stack([y, phi]), weights=pt,
                        definition=GenKTDefinition(p=0.0, R=R, cos_cut=0.0))
    assert seq.n_merges == fj_merges
    np.testing.assert_array_equal(seq.labels(), canonical(want))
    # the jets themselves: pt-weighted (y, phi), summed pt (our weights are pt / max pt)
    got = np.column_stack([seq.final_positions, seq.final_weights * pt.max()])
    ref = np.array([[j.rap(), j.phi(), j.pt()] for j in jets])
    np.testing.assert_allclose(got[np.argsort(got[:, 2])], ref[np.argsort(ref[:, 2])],
                               rtol=1e-9, atol=1e-9)
