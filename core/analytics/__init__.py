"""Analytics over stored responses: item calibration and ability estimation (see core.analytics.irt)."""
