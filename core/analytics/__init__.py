"""Analytics over stored responses: IRT-lite calibration (irt, calibration), classical item statistics
(item_stats), knowledge tracing and mastery (bkt, mastery), and what the pages show (reports)."""
