"""Oracles for the SQA Higher Physics skills (SQA.PHYS.H.*).

Each answer is worked out from the physics in plain Python (``math`` only),
with the SQA data sheet values g = 9.8 m s^-2, h = 6.63e-34 J s and
c = 3.00e8 m s^-1, then rounded as the item asks: to the decimal places of
the key for numeric answers, to 3 significant figures for the capacitor
energies and the other multiple-choice quantities that span several powers of
ten (dilated times, irradiances and distances, peak and r.m.s. values).
Nothing here reads the blueprints or calls the project's helpers.
"""
from __future__ import annotations

import math

G = 9.8
PLANCK = 6.63e-34
LIGHT = 3.00e8


def _three_sig_figs(x: float) -> float:
    return round(x, 2 - math.floor(math.log10(abs(x))))


def _suvat_final_velocity(p: dict) -> float:
    u, a = p["u"], p["a"]
    if p["mode"] == "time":
        t = p["x"]
        return round(u + a * t, 1)
    s = p["x"]
    return round(math.sqrt(u ** 2 + 2 * a * s), 1)


def _projectile_range(p: dict) -> float:
    v, q = p["v"], p["q"]
    if p["case"] == "timed":
        distance = v * q
    elif p["case"] == "horizontal":
        # u_v = 0, s = 1/2 g t^2
        distance = v * math.sqrt(2 * q / G)
    else:
        # Level ground: R = v^2 sin(2 theta) / g
        distance = v ** 2 * math.sin(math.radians(2 * q)) / G
    return round(distance, 1)


def _momentum_collision(p: dict) -> float:
    total_momentum = p["m1"] * p["u1"] + p["m2"] * p["u2"]
    return round(total_momentum / (p["m1"] + p["m2"]), 2)


WORK_FUNCTIONS_E19 = {"none": 0.0, "caesium": 3.43, "potassium": 3.68, "sodium": 3.78,
                      "calcium": 4.60, "magnesium": 5.86, "zinc": 6.89}


def _photon_energy(p: dict) -> float:
    if p["mode"] == "frequency":
        energy = PLANCK * (p["mant"] * 1e14)
    else:
        wavelength = round(p["mant"] * 100) * 1e-9   # shown to the student in nm
        energy = PLANCK * LIGHT / wavelength
    kinetic = energy - WORK_FUNCTIONS_E19[p["metal"]] * 1e-19
    return round(kinetic * 1e19, 2)


def _grating_wavelength(p: dict) -> float:
    d = 1 / (p["lines"] * 1000)              # lines per mm -> slit spacing in m
    wavelength = d * math.sin(math.radians(p["theta"])) / p["n"]
    return round(wavelength * 1e9)


def _refractive_index(p: dict) -> float:
    return round(math.sin(math.radians(p["a_air"])) / math.sin(math.radians(p["a_mat"])), 2)


def _internal_resistance(p: dict) -> float:
    r = p["r"]
    if p["mode"] == "emf_from_current":
        emf = p["volts"] + p["x"] * r
        return round(emf, 2)
    load = p["x"]
    if p["mode"] == "tpd_from_load":
        emf = p["volts"]
        tpd = emf * load / (load + r)
        return round(tpd, 2)
    tpd = p["volts"]
    return round(tpd * (load + r) / load, 2)


def _capacitor_energy(p: dict) -> float:
    capacitance = p["cap"] * 1e-6
    energy_joules = 0.5 * capacitance * p["volts"] ** 2
    return _three_sig_figs(energy_joules * 1000)


def _percentage_uncertainty(p: dict) -> float:
    distance_pct = p["dd"] / p["d"] * 100
    time_pct = p["dt"] / p["t"] * 100
    if p["target"] == "distance":
        return round(distance_pct, 1)
    if p["target"] == "time":
        return round(time_pct, 1)
    return round(max(distance_pct, time_pct), 1)


def _resultant_force(p: dict) -> float:
    # Forces along the direction of motion; friction always opposes it.
    mass = p["m"]
    weight_down_slope = mass * G * math.sin(math.radians(p["angle"]))
    if p["mode"] == "level":
        unbalanced = p["pull"] - p["friction"]
    elif p["mode"] == "down":
        unbalanced = weight_down_slope - p["friction"]
    else:   # pulled up the slope: weight component and friction both act down it
        unbalanced = p["pull"] - weight_down_slope - p["friction"]
    return round(unbalanced / mass, 1)


def _time_dilation(p: dict) -> float:
    v = p["beta"] * LIGHT                     # the speed the student is given (or v/c times c)
    lorentz = 1 / math.sqrt(1 - v ** 2 / LIGHT ** 2)
    if p["mode"] == "dilated":                # observer's time from the moving clock's own time
        return _three_sig_figs(p["t"] * lorentz)
    return _three_sig_figs(p["t"] / lorentz)  # the moving clock's own (shorter) time


def _irradiance_distance(p: dict) -> float:
    i1, d1 = p["i1"], p["d1"]
    k = i1 * d1 ** 2                          # I = k / d^2 for a point source
    if p["mode"] == "distance":
        return _three_sig_figs(math.sqrt(k / p["i2"]))
    return _three_sig_figs(k / p["d2"] ** 2)


def _peak_rms(p: dict) -> float:
    if p["mode"] == "to_peak":
        return _three_sig_figs(p["x"] * math.sqrt(2))
    if p["mode"] == "to_rms":
        return _three_sig_figs(p["x"] / math.sqrt(2))
    peak_to_peak = p["divisions"] * p["gain"]  # divisions x volts per division
    return _three_sig_figs(peak_to_peak / 2 / math.sqrt(2))


# Offsets of the repeated readings from their mean, in steps of du, as the
# blueprint prints them; the oracle finds (max - min) / n from the readings.
RANDOM_UNCERTAINTY_PATTERNS = {
    4: [[2, -1, -2, 1], [-2, 1, 2, -1], [1, -2, 2, -1]],
    5: [[-2, 3, 0, -1, 0], [1, -2, 3, 0, -2], [2, -1, -3, 0, 2]],
    6: [[3, -1, 0, -3, 2, -1], [-2, 1, 4, -1, 0, -2], [1, -3, 2, 3, -2, -1]],
}


def _random_uncertainty(p: dict) -> float:
    n = p["n"]
    offsets = RANDOM_UNCERTAINTY_PATTERNS[n][p["pat"]]
    readings = [round(p["t"] + k * p["du"], 2) for k in offsets]   # as printed, to 0.01 s
    assert len(readings) == n
    uncertainty = (max(readings) - min(readings)) / n
    if p["mode"] == "period":                  # each reading is ten oscillations
        uncertainty /= 10
    return round(uncertainty, 3)


SI_UNITS = {
    "force": "newton",
    "energy": "joule",
    "power": "watt",
    "electric charge": "coulomb",
    "potential difference": "volt",
    "electric current": "ampere",
    "resistance": "ohm",
    "frequency": "hertz",
    "capacitance": "farad",
    "the period of a wave": "second",
    "momentum": "kg m s^-1",
    "acceleration": "m s^-2",
    "velocity": "m s^-1",
    "gravitational field strength": "N kg^-1",
    "weight": "newton",
    "work done": "joule",
    "the EMF of a cell": "volt",
    "wavelength": "metre",
    "the kinetic energy of a photoelectron": "joule",
    "displacement": "metre",
    "the speed of a wave": "m s^-1",
    "impulse": "N s",
    "the Planck constant": "J s",
    "the gravitational constant G": "N m^2 kg^-2",
    "the Hubble constant": "s^-1",
    "refractive index": "no unit",
    "electric field strength": "N C^-1",
    "irradiance": "W m^-2",
    "the work function of a metal": "joule",
    "threshold frequency": "hertz",
    "the gradient of a velocity-time graph": "m s^-2",
    "the area under a force-time graph": "N s",
}


def _si_unit(p: dict) -> str:
    return SI_UNITS[p["quantity"]]


ORACLES = {
    "SQA.PHYS.H.SUVAT_FINAL_VELOCITY": _suvat_final_velocity,
    "SQA.PHYS.H.PROJECTILE_RANGE": _projectile_range,
    "SQA.PHYS.H.MOMENTUM_COLLISION": _momentum_collision,
    "SQA.PHYS.H.PHOTON_ENERGY": _photon_energy,
    "SQA.PHYS.H.GRATING_WAVELENGTH": _grating_wavelength,
    "SQA.PHYS.H.REFRACTIVE_INDEX": _refractive_index,
    "SQA.PHYS.H.INTERNAL_RESISTANCE": _internal_resistance,
    "SQA.PHYS.H.CAPACITOR_ENERGY": _capacitor_energy,
    "SQA.PHYS.H.PERCENTAGE_UNCERTAINTY": _percentage_uncertainty,
    "SQA.PHYS.H.SI_UNITS": _si_unit,
    "SQA.PHYS.H.RESULTANT_FORCE": _resultant_force,
    "SQA.PHYS.H.TIME_DILATION": _time_dilation,
    "SQA.PHYS.H.IRRADIANCE_DISTANCE": _irradiance_distance,
    "SQA.PHYS.H.PEAK_RMS": _peak_rms,
    "SQA.PHYS.H.RANDOM_UNCERTAINTY": _random_uncertainty,
}
