"""lib.rod.hessian from its cached CSR pattern (issue 26) equals the COO-assembled matrix."""
import numpy as np
import pytest
import scipy.sparse as sp

from lib import rod


def _coo_hessian(r, q):
    """The former assembly: COO triplets summed by scipy's COO -> CSR conversion."""
    rr, cc, vv = rod._triplets(r, q)
    return sp.coo_matrix((vv, (rr, cc)), shape=(r.ndof, r.ndof)).tocsr()


@pytest.mark.parametrize("N", [1, 2, 3, 7, 20, 80])
@pytest.mark.parametrize("r_over_L", [0.002, 0.04])
def test_pattern_hessian_equals_coo_assembly_bit_for_bit(N, r_over_L):
    r = rod.make_rod(N, r_over_L=r_over_L)
    rng = np.random.default_rng(N)
    for _ in range(4):
        q = rod.straight(r) + rng.standard_normal(r.ndof) * 0.3
        H, ref = rod.hessian(r, q), _coo_hessian(r, q)
        ref.sort_indices()
        assert H.format == "csr" and H.shape == ref.shape
        np.testing.assert_array_equal(H.indptr, ref.indptr)
        np.testing.assert_array_equal(H.indices, ref.indices)
        np.testing.assert_array_equal(H.data, ref.data)     # same sums, same order
        fresh = sp.csr_matrix((H.data, H.indices, H.indptr), shape=H.shape)
        assert fresh.has_canonical_format                  # checked, not just the flag


def test_pattern_is_cached_and_read_only():
    r = rod.make_rod(12)
    a, b = rod._csr_pattern(12), rod._csr_pattern(12)
    assert all(x is y for x, y in zip(a, b))
    assert not any(x.flags.writeable for x in a)
    H = rod.hessian(r, rod.straight(r))
    H.indices[0] = H.indices[0]                            # the matrix owns its arrays
    assert H.indices.flags.writeable and H.indices is not a[0]
