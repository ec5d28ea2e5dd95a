"""Cross-chapter studies, built on the faces and floors (which never import them).

work_precision   WorkPoint, work_precision, ToleranceStep, step_for_tolerance: the
                 work-precision ladder of the energy chapter's bill; DenseReference,
                 dop853_reference: its DOP853 reference, kept for a few components
"""
from .work_precision import (DenseReference, ToleranceStep, WorkPoint, dop853_reference,
                             step_for_tolerance, work_precision)

__all__ = ["WorkPoint", "ToleranceStep", "work_precision", "step_for_tolerance",
           "DenseReference", "dop853_reference"]
