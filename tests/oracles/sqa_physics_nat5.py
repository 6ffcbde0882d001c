"""Oracles for the SQA National 5 Physics skills (SQA.PHYS.N5.*).

Each answer is worked out from the physics in plain Python (``math`` and
``decimal`` only), with the National 5 data sheet values: g = 9.8 N kg^-1 on
Earth and the field strengths of the other worlds, c = 3.0e8 m s^-1, the
specific heat capacities and latent heats, and the radiation weighting
factors. Rounded answers are rounded half up, as SQA marking schemes round.
Recall questions are answered from this module's own tables of the facts.
Nothing here reads the blueprints or calls the project's helpers.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

G_EARTH = 9.8
LIGHT = 3.0e8
SECONDS_PER_YEAR = 365.25 * 24 * 3600


# --------------------------------------------------------------------------
# Small independent helpers


def _half_up_sf(x: float, figures: int) -> float:
    """Round to significant figures, halves away from zero."""
    d = Decimal(repr(float(x)))
    if d == 0:
        return 0.0
    exponent = d.adjusted() - figures + 1
    return float(d.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP))


def _number_text(x: float) -> str:
    """A number as a teacher writes it: no trailing zeros, no float noise."""
    value = float(x)
    if value.is_integer():
        return str(int(value))
    return f"{value:.10g}"


# --------------------------------------------------------------------------
# Dynamics


def _acceleration(p: dict) -> float:
    u, v, t = p["u"], p["v"], p["t"]
    a = (v - u) / t                                # the acceleration (given to the student in find_v, find_t)
    if p["mode"] in ("speed_up", "slow_down"):
        return a
    if p["mode"] == "find_v":
        return u + a * t
    return (v - u) / a


def _vt_graph_distance(p: dict) -> str:
    u, v, t1, t2 = p["u"], p["v"], p["t1"], p["t2"]
    if p["mode"] == "rest":
        area = 0.5 * v * t1                        # one triangle
    elif p["mode"] == "change":
        low, high = min(u, v), max(u, v)
        area = low * t1 + 0.5 * (high - low) * t1  # rectangle and triangle
    else:
        area = 0.5 * v * t1 + v * t2               # triangle and rectangle
    return f"{_number_text(area)} m"


def _newton_second_law(p: dict) -> float:
    m, a, friction = p["m"], p["a"], p["ff"]
    if p["mode"] == "driving_force":
        return m * a + friction                    # unbalanced force plus the friction overcome
    unbalanced = m * a                             # the force the student is given (resultant)
    if p["mode"] == "friction":
        driving = unbalanced + friction            # the student is given this and the friction
        unbalanced = driving - friction
    return unbalanced / m


def _work_energy(p: dict) -> float:
    mode, m, x, f = p["mode"], p["m"], p["x"], p["f"]
    if mode == "work":
        return f * x
    if mode == "ep":
        return m * G_EARTH * x
    if mode == "ek":
        return 0.5 * m * x ** 2
    return _half_up_sf(math.sqrt(2 * G_EARTH * x), 3)     # mgh = 1/2 mv^2


def _projectile_horizontal(p: dict) -> float:
    vh, t = p["vh"], p["t"]
    if p["mode"] == "range":
        return vh * t
    if p["mode"] == "height":
        vertical = G_EARTH * t
        return _half_up_sf(0.5 * t * vertical, 3)          # area under the vertical v-t graph
    return G_EARTH * t                                     # vertical velocity from rest


SCALARS = {"distance", "speed", "time", "mass", "energy", "temperature", "power", "work done", "kinetic energy",
           "the reading on a car's speedometer", "average speed"}
VECTORS = {"displacement", "velocity", "force", "acceleration", "weight", "the frictional force on a sliding box",
           "the thrust of a rocket engine", "the pull of the Earth on the Moon", "average velocity"}
VECTOR_PARTNERS = {
    "partner of distance": "displacement",
    "partner of speed": "velocity",
    "partner of displacement": "distance",
    "partner of velocity": "speed",
    "partner of average speed": "average velocity",
    "partner of average velocity": "average speed",
    "a size and a direction": "vector",
    "a size only": "scalar",
    "lap displacement": "0 m",
    "lap distance": "400 m",
    "roundabout": "velocity",
}


def _vectors_scalars(p: dict) -> str:
    prompt = p["prompt"]
    if prompt in SCALARS:
        return "scalar"
    if prompt in VECTORS:
        return "vector"
    return VECTOR_PARTNERS[prompt]


# --------------------------------------------------------------------------
# Space


STAR_DISTANCES_LY = {"Proxima Centauri": 4.2, "Barnard's Star": 6.0, "Sirius": 8.6, "Epsilon Eridani": 10.5,
                     "Procyon": 11.4, "Altair": 16.7, "Vega": 25.0}


def _light_year(p: dict) -> float:
    quantity = p["mant"] * 10 ** p["ex"]
    light_year_m = LIGHT * SECONDS_PER_YEAR
    if p["mode"] == "signal":
        value = quantity / LIGHT
    elif p["mode"] == "to_ly":
        value = quantity / light_year_m
    else:
        distance = STAR_DISTANCES_LY[p["star"]] * light_year_m
        value = distance / quantity / SECONDS_PER_YEAR
    return _half_up_sf(value, 3)


FIELD_STRENGTH = {"Earth": 9.8, "Mercury": 3.7, "Venus": 8.9, "the Moon": 1.6, "Mars": 3.7, "Jupiter": 23,
                  "Saturn": 9.0, "Uranus": 8.7, "Neptune": 11}


def _weight_on_planets(p: dict) -> str:
    weight = p["m"] * FIELD_STRENGTH[p["body"]]
    return f"{_number_text(_half_up_sf(weight, 3))} N"


SPACE_TERMS = {
    "planet": "planet", "moon": "moon", "star": "star", "solar system": "solar system", "galaxy": "galaxy",
    "universe": "universe", "light year": "light year", "sun": "the Sun", "asteroid": "asteroid", "comet": "comet",
    "exoplanet": "exoplanet", "Big Bang": "Big Bang", "geostationary": "geostationary satellite", "period": "period",
    "satellite": "satellite", "dwarf planet": "dwarf planet", "orbit": "orbit", "gravity": "gravity",
    "Milky Way": "Milky Way", "artificial satellite": "artificial satellite",
    "line spectrum": "line spectrum", "cosmic microwave background": "cosmic microwave background",
    "age": "14 billion years", "fusion": "nuclear fusion", "spectrum": "spectrum", "telescope": "telescope",
    "heat shield": "heat shield", "Newton's third law": "Newton's third law", "spectroscope": "spectroscope",
    "hydrogen": "hydrogen",
}


def _space_terms(p: dict) -> str:
    return SPACE_TERMS[p["word"]]



# --------------------------------------------------------------------------
# Electricity


def _ohms_law(p: dict) -> float:
    current = p["i_ma"] / 1000                    # mA to A
    resistance = p["r"]
    voltage = current * resistance
    if p["mode"] in ("find_v", "prefix_v"):
        return voltage
    if p["mode"] == "find_r":
        return voltage / current
    return voltage / resistance


def _total_resistance(p: dict) -> str:
    r1, r2, r3 = p["r1"], p["r2"], p["r3"]
    if p["mode"] == "series":
        total = r1 + r2 + (r3 if p["three"] == 1 else 0)
    else:
        pair = 1 / (1 / r2 + 1 / r3)
        total = pair if p["mode"] == "parallel" else r1 + pair
    return f"{_number_text(_half_up_sf(total, 3))} Ω"


SUPPLY_VOLTS = {"kettle": 230, "toaster": 230, "hairdryer": 230, "heater": 230, "lamp": 230, "car headlamp": 12,
                "phone charger": 5, "torch bulb": 3, "car fan motor": 12, "resistor": 12}


def _electrical_power(p: dict) -> float:
    mode, current = p["mode"], p["i"]
    if mode == "piv":
        return current * SUPPLY_VOLTS[p["device"]]
    if mode == "i2r":
        return current ** 2 * p["r"]
    if mode == "v2r":
        return _half_up_sf(p["vs"] ** 2 / p["r"], 3)
    power = current * SUPPLY_VOLTS[p["device"]]
    return power * p["tmin"] * 60                 # E = Pt, t in seconds


CIRCUIT_FACTS = {
    "ammeter": "ammeter", "voltmeter": "voltmeter", "fuse": "fuse", "switch": "switch", "cell": "cell",
    "lamp": "lamp", "loudspeaker": "loudspeaker", "motor": "motor", "resistor": "resistor",
    "variable resistor": "variable resistor", "LDR": "LDR", "thermistor": "thermistor", "LED": "LED",
    "diode": "diode", "microphone": "microphone", "solar cell": "solar cell", "transistor": "transistor",
    "potential divider": "potential divider", "ohmmeter": "ohmmeter", "heating element": "heating element",
    "ammeter connection": "in series", "voltmeter connection": "in parallel", "series current": "it is the same",
    "parallel voltage": "they are the same", "LDR dark": "it increases", "thermistor hot": "it decreases",
    "parallel current": "sum", "series voltage": "sum", "charge carriers": "electrons",
    "current definition": "current",
}


def _circuit_components(p: dict) -> str:
    return CIRCUIT_FACTS[p["part"]]



# --------------------------------------------------------------------------
# Properties of matter


SPECIFIC_HEAT_CAPACITY = {"alcohol": 2350, "aluminium": 902, "copper": 386, "glass": 500, "ice": 2100, "iron": 480,
                          "lead": 128, "oil": 2130, "water": 4180}


def _specific_heat(p: dict) -> float:
    c, m = SPECIFIC_HEAT_CAPACITY[p["material"]], p["m"]
    if p["mode"] == "energy":
        return c * m * p["dt"]
    heat_given = c * m * p["dt"]                   # the energy the student is given
    if p["mode"] == "temp":
        return heat_given / (c * m)
    if p["mode"] == "mass":
        return heat_given / (c * p["dt"])
    heat = p["power"] * p["secs"]                  # Eh = Pt
    return _half_up_sf(heat / (c * m), 3)


LATENT_FUSION = {"alcohol": 0.99e5, "aluminium": 3.95e5, "carbon dioxide": 1.80e5, "copper": 2.05e5,
                 "iron": 2.67e5, "lead": 0.25e5, "water": 3.34e5}
LATENT_VAPORISATION = {"alcohol": 11.2e5, "carbon dioxide": 3.77e5, "glycerol": 8.30e5, "turpentine": 2.90e5,
                       "water": 22.6e5}


def _latent_heat(p: dict) -> float:
    table = LATENT_FUSION if p["change"] == "melt" else LATENT_VAPORISATION
    heat = p["m"] * table[p["substance"]]
    if p["mode"] == "energy":
        return heat
    if p["mode"] == "mass":
        return heat / table[p["substance"]]    # m = Eh / l, from the energy given
    return _half_up_sf(heat / p["power"], 3)   # t = Eh / P


def _pressure(p: dict) -> float:
    if p["mode"] == "pressure":
        return p["f"] / p["a"]
    if p["mode"] == "force":
        return p["kpa"] * 1e3 * p["a"]
    weight = p["m"] * G_EARTH
    area = p["acm"] * 1e-4                     # cm^2 to m^2
    return _half_up_sf(weight / area, 3)


def _gas_laws(p: dict) -> str:
    kelvin_1, kelvin_2 = p["t1c"] + 273, p["t2c"] + 273
    mode = p["mode"]
    if mode == "boyle":
        value, unit = p["p1"] * p["v1"] / p["v2"], "kPa"
    elif mode == "pressure_temp":
        value, unit = p["p1"] / kelvin_1 * kelvin_2, "kPa"
    elif mode == "volume_temp":
        value, unit = p["v1"] / kelvin_1 * kelvin_2, "cm³"
    else:
        value, unit = p["p1"] * p["v1"] / kelvin_1 * kelvin_2 / p["v2"], "kPa"
    return f"{_number_text(_half_up_sf(value, 3))} {unit}"




KINETIC_FACTS = {
    "absolute zero": "absolute zero", "zero celsius": "-273 °C", "kelvin unit": "kelvin", "pascal": "pascal",
    "shc": "specific heat capacity", "slh": "specific latent heat",
    "speed heated": "it increases", "collisions heated": "they hit the walls more often",
    "collisions compressed": "it increases", "pressure cause": "particles colliding with the walls",
    "ke temperature": "it increases", "halve volume": "it doubles", "double kelvin": "it doubles",
    "halve kelvin volume": "it halves", "change of state temperature": "it stays the same",
    "boyle": "Boyle's law", "pressure law": "pressure law", "charles": "Charles's law", "melting": "melting",
    "condensing": "condensing", "freezing": "freezing", "boiling": "boiling",
}
# Temperature questions: (value, from scale); the answer is in the other scale.
KINETIC_TEMPERATURES = {"27C": (27, "C"), "100C": (100, "C"), "-73C": (-73, "C"), "350K": (350, "K"),
                        "400K": (400, "K"), "-273 in K": (-273, "C"), "zero kelvin ke": (-273, "C")}


def _kinetic_model(p: dict) -> str:
    fact = p["fact"]
    if fact == "kelvin step":
        return "15 K"                              # a change of 1 °C is a change of 1 K
    if fact in KINETIC_TEMPERATURES:
        value, scale = KINETIC_TEMPERATURES[fact]
        return f"{value + 273} K" if scale == "C" else f"{value - 273} °C"
    return KINETIC_FACTS[fact]

# --------------------------------------------------------------------------
# Waves


SOUND_SPEED = {"air": 340, "water": 1500}


def _wave_speed(p: dict) -> float:
    mode = p["mode"]
    if mode == "speed":
        return p["f"] * p["lam"]
    if mode == "radio":
        return _half_up_sf(LIGHT / (p["mhz"] * 1e6), 3)
    if mode == "sound":
        return _half_up_sf(SOUND_SPEED[p["medium"]] / p["f"], 3)
    if mode == "count":
        frequency = p["n"] / p["secs"]
        return frequency * p["lam"]
    there_and_back = SOUND_SPEED[p["medium"]] * p["secs"]
    return there_and_back / 2


# In order of increasing frequency (decreasing wavelength).
EM_ORDER = ["radio waves", "microwaves", "infrared", "visible light", "ultraviolet", "X-rays", "gamma rays"]
# The radiation each application question (by its number) is about.
EM_USES = {1: "radio waves", 2: "radio waves", 3: "microwaves", 4: "microwaves", 5: "infrared", 6: "infrared",
           7: "infrared", 8: "visible light", 9: "visible light", 10: "ultraviolet", 11: "ultraviolet",
           12: "X-rays", 13: "X-rays", 14: "gamma rays", 15: "gamma rays", 16: "gamma rays"}


def _em_spectrum(p: dict) -> str:
    if p["use"] >= 1:
        return EM_USES[p["use"]]
    chosen = sorted([p["a"], p["b"], p["c"], p["d"]])
    names = [EM_ORDER[i] for i in chosen]
    ask = p["ask"]
    if ask in ("longest wavelength", "lowest frequency"):
        return names[0]
    if ask in ("shortest wavelength", "highest frequency"):
        return names[-1]
    if ask in ("increasing frequency", "decreasing wavelength"):
        return ", ".join(names)
    return ", ".join(reversed(names))


REFRACTION_FACTS = {
    "normal": "normal", "angle of incidence": "angle of incidence", "angle of refraction": "angle of refraction",
    "refraction": "refraction", "incident ray": "incident ray", "refracted ray": "refracted ray",
    "glass block": "slows down", "leaving glass": "speeds up", "reflection": "reflection", "prism": "prism",
    "towards normal": "towards the normal", "away normal": "away from the normal",
    "along normal": "it does not change", "speed into glass": "it decreases",
    "wavelength into glass": "it decreases", "frequency into glass": "it stays the same",
    "angle comparison": "the angle of incidence", "speed out of glass": "it increases",
    "wavelength out of glass": "it increases", "lens": "lens",
    "deep to shallow speed": "it decreases", "deep to shallow wavelength": "it decreases",
    "deep to shallow frequency": "it stays the same", "shallow to deep speed": "it increases",
    "cause of refraction": "speed", "converging lens": "convex lens", "diverging lens": "concave lens",
    "focal point": "focal point", "wave frequency rule": "frequency", "angle in air": "the angle in the air",
}


def _refraction(p: dict) -> str:
    return REFRACTION_FACTS[p["prompt"]]


# --------------------------------------------------------------------------
# Radiation


def _activity(p: dict) -> float:
    if p["mode"] == "time":
        activity_bq = p["act"] * (1e3 if p["prefix"] == "kBq" else 1e6)
        decays = activity_bq * p["t"]
        return decays / activity_bq
    seconds = p["t"] * 60 if p["mode"] == "minutes" else p["t"]
    return p["n"] / seconds


def _half_life(p: dict) -> str:
    if p["mode"] == "half_life":
        total_time = p["n"] * p["th"]              # the time the student is given, over n halvings
        return f"{_number_text(total_time / p['n'])} {p['unit']}"
    remaining = p["a0"]
    for _ in range(p["n"]):
        remaining /= 2
    unit = "counts per minute" if p["mode"] == "background" else p["aunit"]
    return f"{_number_text(remaining)} {unit}"


WEIGHTING_FACTORS = {"alpha": 20, "beta": 1, "fast neutrons": 10, "gamma": 1, "slow neutrons": 3, "X-rays": 1}


def _dose(p: dict) -> float:
    w = WEIGHTING_FACTORS[p["rad"]]
    if p["mode"] == "absorbed":
        return p["energy"] / p["m"]
    if p["mode"] == "equivalent":
        return p["dm"] * w                             # mGy x wR = mSv
    absorbed_gy = p["energy"] * 1e-3 / p["m"]
    return _half_up_sf(absorbed_gy * w * 1e3, 3)       # in mSv


NUCLEAR_FACTS = {
    "paper": "alpha", "aluminium": "beta", "lead": "gamma", "helium nucleus": "alpha", "fast electron": "beta",
    "em wave": "gamma", "most ionising": "alpha", "least ionising": "gamma", "background": "background radiation",
    "ionisation": "ionisation", "fission": "fission", "fusion": "fusion", "half-life": "half-life",
    "activity": "activity", "chain reaction": "chain reaction", "neutron trigger": "neutron", "sun fusion": "fusion",
    "reactor fission": "fission", "geiger": "Geiger-Müller tube", "film badge": "film badge",
    "becquerel": "becquerel", "gray": "gray", "sievert": "sievert", "weighting factor": "radiation weighting factor",
    "control rods": "control rods", "moderator": "moderator", "equivalent dose rate": "equivalent dose rate",
    "tracer": "tracer", "alpha inside": "alpha", "gamma outside": "gamma",
}


def _nuclear_radiation(p: dict) -> str:
    return NUCLEAR_FACTS[p["fact"]]


ORACLES = {
    "SQA.PHYS.N5.ACCELERATION": _acceleration,
    "SQA.PHYS.N5.VT_GRAPH_DISTANCE": _vt_graph_distance,
    "SQA.PHYS.N5.NEWTON_SECOND_LAW": _newton_second_law,
    "SQA.PHYS.N5.WORK_ENERGY": _work_energy,
    "SQA.PHYS.N5.PROJECTILE_HORIZONTAL": _projectile_horizontal,
    "SQA.PHYS.N5.VECTORS_SCALARS": _vectors_scalars,
    "SQA.PHYS.N5.LIGHT_YEAR": _light_year,
    "SQA.PHYS.N5.WEIGHT_ON_PLANETS": _weight_on_planets,
    "SQA.PHYS.N5.SPACE_TERMS": _space_terms,
    "SQA.PHYS.N5.OHMS_LAW": _ohms_law,
    "SQA.PHYS.N5.TOTAL_RESISTANCE": _total_resistance,
    "SQA.PHYS.N5.ELECTRICAL_POWER": _electrical_power,
    "SQA.PHYS.N5.CIRCUIT_COMPONENTS": _circuit_components,
    "SQA.PHYS.N5.SPECIFIC_HEAT": _specific_heat,
    "SQA.PHYS.N5.LATENT_HEAT": _latent_heat,
    "SQA.PHYS.N5.PRESSURE": _pressure,
    "SQA.PHYS.N5.GAS_LAWS": _gas_laws,
    "SQA.PHYS.N5.KINETIC_MODEL": _kinetic_model,
    "SQA.PHYS.N5.WAVE_SPEED": _wave_speed,
    "SQA.PHYS.N5.EM_SPECTRUM": _em_spectrum,
    "SQA.PHYS.N5.REFRACTION": _refraction,
    "SQA.PHYS.N5.ACTIVITY": _activity,
    "SQA.PHYS.N5.HALF_LIFE": _half_life,
    "SQA.PHYS.N5.DOSE": _dose,
    "SQA.PHYS.N5.NUCLEAR_RADIATION": _nuclear_radiation,
}
