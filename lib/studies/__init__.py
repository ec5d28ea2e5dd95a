"""Cross-chapter studies, built on the faces and floors (which never import them).

work_precision   WorkPoint, work_precision, ToleranceStep, step_for_tolerance: the
                 work-precision ladder of the energy chapter's bill
"""
from .work_precision import ToleranceStep, WorkPoint, step_for_tolerance, work_precision

__all__ = ["WorkPoint", "ToleranceStep", "work_precision", "step_for_tolerance"]
