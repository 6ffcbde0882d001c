"""Oracles for the SQA National 5 Chemistry skills (SQA.CHEM.N5.*).

Each answer is worked out from the chemistry in plain Python (standard library
only): formula masses by reading the formula itself (brackets and water of
crystallisation included) with the relative atomic masses of the SQA data
booklet, mole ratios from the balanced equations written out here, names of
carbon compounds by reading their shortened structural formulae, and the
classifications (bonding, pH, series, gas and flame tests) from the rules
taught in the course. Answers are rounded as the items round them. Nothing
here reads the blueprints or calls the project's helpers.
"""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

# Relative atomic masses as printed in the SQA data booklet (the values the course uses).
RAM = {"H": 1.0, "C": 12.0, "N": 14.0, "O": 16.0, "Na": 23.0, "Mg": 24.5, "Al": 27.0, "S": 32.0,
       "Cl": 35.5, "K": 39.0, "Ca": 40.0, "Fe": 56.0, "Cu": 63.5, "Zn": 65.5}
SPECIFIC_HEAT_WATER = 4.18          # kJ kg^-1 °C^-1, from the data booklet


def _half_up(x: float, places: int) -> float:
    """Round as a mark scheme does (halves away from zero), from the number's shortest decimal form."""
    return float(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _sig_figs(x: float, figures: int) -> float:
    """Round to significant figures, halves away from zero."""
    if x == 0:
        return 0.0
    magnitude = len(str(int(abs(x)))) if abs(x) >= 1 else -len(re.match(r"0\.(0*)", f"{abs(x):.15f}")[1])
    return _half_up(x, figures - magnitude)


# --------------------------------------------------------------------------
# Chemical changes and structure: formulae and reacting quantities


def atom_counts(formula: str) -> dict[str, int]:
    """The atoms of each element in a formula such as 'Al2(SO4)3' or 'CuSO4.5H2O'."""
    total: dict[str, int] = {}
    for i, part in enumerate(formula.split(".")):
        times = 1
        if i > 0:
            lead = re.match(r"(\d+)", part)
            if lead:
                times, part = int(lead[1]), part[len(lead[1]):]
        for element, n in _read_group(part).items():
            total[element] = total.get(element, 0) + n * times
    return total


def _read_group(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    i = 0
    while i < len(text):
        if text[i] == "(":
            depth, j = 1, i + 1
            while depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            inner = _read_group(text[i + 1:j - 1])
            number = re.match(r"\d*", text[j:])[0]
            for element, n in inner.items():
                counts[element] = counts.get(element, 0) + n * int(number or 1)
            i = j + len(number)
            continue
        m = re.match(r"([A-Z][a-z]?)(\d*)", text[i:])
        counts[m[1]] = counts.get(m[1], 0) + int(m[2] or 1)
        i += len(m[0])
    return counts


def formula_mass(formula: str) -> float:
    return sum(RAM[element] * n for element, n in atom_counts(formula).items())


def _gram_formula_mass(p: dict) -> float:
    return round(formula_mass(p["compound"]), 1)


def _moles(p: dict) -> float:
    gfm = formula_mass(p["compound"])
    n = p["n_mol"]
    if p["mode"] == "mass":
        return _half_up(n * gfm, 3)
    if p["mode"] == "kilograms":
        grams = _half_up(n * gfm / 1000, 4) * 1000
    else:
        grams = _half_up(n * gfm, 3)
    return _half_up(grams / gfm, 3)


def _concentration(p: dict) -> float:
    litres = p["vol"] / 1000
    moles_shown = _half_up(p["conc"] * litres, 5)
    mode = p["mode"]
    if mode == "concentration":
        value = moles_shown / litres
    elif mode == "moles":
        value = p["conc"] * litres
    elif mode == "volume":
        value = moles_shown / p["conc"] * 1000          # litres to cm^3
    else:
        grams = _half_up(moles_shown * formula_mass(p["compound"]), 4)
        value = grams / formula_mass(p["compound"]) / litres
    return _half_up(value, 5)


# Each reaction's balanced equation, the substance whose mass is given and the one asked for.
EQUATIONS = {
    "CaCO3_CO2": ("CaCO3 -> CaO + CO2", "CaCO3", "CO2"),
    "CaCO3_CaO": ("CaCO3 -> CaO + CO2", "CaCO3", "CaO"),
    "CuCO3_CuO": ("CuCO3 -> CuO + CO2", "CuCO3", "CuO"),
    "Mg_MgO": ("2Mg + O2 -> 2MgO", "Mg", "MgO"),
    "CH4_CO2": ("CH4 + 2O2 -> CO2 + 2H2O", "CH4", "CO2"),
    "CH4_H2O": ("CH4 + 2O2 -> CO2 + 2H2O", "CH4", "H2O"),
    "C3H8_CO2": ("C3H8 + 5O2 -> 3CO2 + 4H2O", "C3H8", "CO2"),
    "C3H8_H2O": ("C3H8 + 5O2 -> 3CO2 + 4H2O", "C3H8", "H2O"),
    "Zn_ZnCl2": ("Zn + 2HCl -> ZnCl2 + H2", "Zn", "ZnCl2"),
    "Mg_MgCl2": ("Mg + 2HCl -> MgCl2 + H2", "Mg", "MgCl2"),
    "Na_NaOH": ("2Na + 2H2O -> 2NaOH + H2", "Na", "NaOH"),
    "Na_H2": ("2Na + 2H2O -> 2NaOH + H2", "Na", "H2"),
    "Fe2O3_Fe": ("Fe2O3 + 3CO -> 2Fe + 3CO2", "Fe2O3", "Fe"),
    "Al2O3_Al": ("2Al2O3 -> 4Al + 3O2", "Al2O3", "Al"),
    "Al2O3_O2": ("2Al2O3 -> 4Al + 3O2", "Al2O3", "O2"),
    "C2H5OH_CO2": ("C2H5OH + 3O2 -> 2CO2 + 3H2O", "C2H5OH", "CO2"),
    "N2_NH3": ("N2 + 3H2 -> 2NH3", "N2", "NH3"),
    "H2_NH3": ("N2 + 3H2 -> 2NH3", "H2", "NH3"),
    "NaOH_Na2SO4": ("2NaOH + H2SO4 -> Na2SO4 + 2H2O", "NaOH", "Na2SO4"),
    "H2SO4_Na2SO4": ("2NaOH + H2SO4 -> Na2SO4 + 2H2O", "H2SO4", "Na2SO4"),
    "glucose_ethanol": ("C6H12O6 -> 2C2H5OH + 2CO2", "C6H12O6", "C2H5OH"),
    "C2H6_CO2": ("2C2H6 + 7O2 -> 4CO2 + 6H2O", "C2H6", "CO2"),
    "Al_Fe": ("Fe2O3 + 2Al -> 2Fe + Al2O3", "Al", "Fe"),
    "Fe2O3_Fe_thermite": ("Fe2O3 + 2Al -> 2Fe + Al2O3", "Fe2O3", "Fe"),
}


def equation_terms(equation: str) -> list[dict[str, int]]:
    """The two sides of an equation as {formula: number of moles}; checked to balance."""
    sides = []
    for side in equation.split("->"):
        terms = {}
        for term in side.split("+"):
            m = re.fullmatch(r"\s*(\d*)(\S+)\s*", term)
            terms[m[2]] = int(m[1] or 1)
        sides.append(terms)
    atoms = [{} for _ in sides]
    for tally, terms in zip(atoms, sides):
        for formula, moles in terms.items():
            for element, n in atom_counts(formula).items():
                tally[element] = tally.get(element, 0) + n * moles
    assert atoms[0] == atoms[1], f"{equation} does not balance"
    return sides


def _mass_from_equation(p: dict) -> float:
    equation, given, target = EQUATIONS[p["reaction"]]
    moles_in = {f: n for side in equation_terms(equation) for f, n in side.items()}
    given_mass = _half_up(p["n_given"] * formula_mass(given), 3)   # as printed, in g, kg or tonnes alike
    moles_given = given_mass / formula_mass(given)
    moles_target = moles_given * moles_in[target] / moles_in[given]
    return _half_up(moles_target * formula_mass(target), 3)


# --------------------------------------------------------------------------
# Chemical changes and structure: rates, atomic structure and bonding, acids and bases


def _average_rate(p: dict) -> float:
    if p["mode"] == "mass_between":
        later_mass = _half_up(p["m1"] - p["dm"], 2)
        return _half_up((p["m1"] - later_mass) / p["dt"], 3)
    earlier_volume, later_volume = p["v1"], p["v1"] + p["dv"]
    earlier_time, later_time = p["t1"], p["t1"] + p["dt"]
    return _half_up((later_volume - earlier_volume) / (later_time - earlier_time), 3)


# Atomic numbers, and the charge of the ion each element forms (from its group: metals lose their outer
# electrons, non-metals gain enough to fill the outer shell).
ATOMIC_NUMBERS = {"Li": 3, "Be": 4, "B": 5, "C": 6, "N": 7, "O": 8, "F": 9, "Ne": 10, "Na": 11, "Mg": 12,
                  "Al": 13, "Si": 14, "P": 15, "S": 16, "Cl": 17, "Ar": 18, "K": 19, "Ca": 20, "Br": 35}


def _outer_electrons(z: int) -> int:
    """Outer-shell electrons: shells of 2, 8, 8, 2 up to calcium; bromine (2,8,18,7) is the one heavier element."""
    if z > 20:
        return z - 2 - 8 - 18
    left = z
    for capacity in (2, 8, 8):
        if left <= capacity:
            return left
        left -= capacity
    return left


def _ion_charge(symbol: str) -> int:
    outer = _outer_electrons(ATOMIC_NUMBERS[symbol])
    return outer if outer <= 3 else -(8 - outer)


def _atomic_particles(p: dict) -> int:
    symbol, mass_number = p["nuclide"].split("-")
    protons = ATOMIC_NUMBERS[symbol]
    if p["particle"] == "protons":
        return protons
    if p["particle"] == "neutrons":
        return int(mass_number) - protons
    charge = _ion_charge(symbol) if p["state"] == "ion" else 0
    return protons - charge


def _bonding(p: dict) -> str:
    if p["solid_conducts"] == "yes":
        return "metallic"            # delocalised electrons move even in the solid
    if p["liquid_conducts"] == "yes":
        return "ionic"               # ions move only once the lattice is broken up
    return "covalent network" if p["mp"] > 1000 else "covalent molecular"


NON_METAL_OXIDES = ("carbon dioxide", "sulfur dioxide", "nitrogen dioxide", "silicon dioxide")
SOLUBLE_METALS = ("lithium", "sodium", "potassium", "calcium", "barium")   # their oxides and hydroxides dissolve
INSOLUBLE = ("copper(II) oxide", "iron(III) oxide", "zinc oxide", "silicon dioxide")


def _acid_alkali_or_neutral(substance: str) -> str:
    if substance in INSOLUBLE:
        return "neutral"
    if "acid" in substance or "hydrogen chloride" in substance or substance in NON_METAL_OXIDES:
        return "acid"
    if "ammonia" in substance or "limewater" in substance:
        return "alkali"
    if ("oxide" in substance or "hydroxide" in substance) and substance.split()[0] in SOLUBLE_METALS:
        return "alkali"
    return "neutral"


def _ph_of_solutions(p: dict) -> str:
    kind = _acid_alkali_or_neutral(p["substance"])
    if p["mode"] == "dilution":
        return {"acid": "The pH rises towards 7.", "alkali": "The pH falls towards 7."}[kind]
    return {"acid": "pH below 7, with more H⁺(aq) ions than OH⁻(aq) ions",
            "alkali": "pH above 7, with more OH⁻(aq) ions than H⁺(aq) ions",
            "neutral": "pH 7, with equal concentrations of H⁺(aq) and OH⁻(aq) ions"}[kind]


ACID_ENDINGS = {"hydrochloric": "chloride", "sulfuric": "sulfate", "nitric": "nitrate", "phosphoric": "phosphate"}


def _salt_naming(p: dict) -> str:
    base = p["base"]
    if base.startswith("ammonia"):
        first = "ammonium"
    else:
        metal = base.split()[0]
        # Copper compounds here are copper(II); iron dissolves in dilute acid as iron(II).
        first = {"copper(II)": "copper(II)", "iron": "iron(II)"}.get(metal, metal)
    return f"{first} {ACID_ENDINGS[p['acid']]}"


# --------------------------------------------------------------------------
# Nature's chemistry


def _homologous_series(p: dict) -> str:
    formula = p["formula"]
    if "COOH" in formula:
        return "carboxylic acids"
    if "OH" in formula:
        return "alcohols"
    if "=" in formula:
        return "alkenes"
    atoms = atom_counts(formula)
    if atoms["H"] == 2 * atoms["C"] + 2:
        return "alkanes"
    assert atoms["H"] == 2 * atoms["C"], formula
    # CnH2n: unsaturated (an alkene) only if it decolourises bromine quickly; otherwise a ring.
    return "alkenes" if p["bromine"] == "decolourised" else "cycloalkanes"


CHAIN_STEMS = {1: "meth", 2: "eth", 3: "prop", 4: "but", 5: "pent", 6: "hex", 7: "hept", 8: "oct"}
_GROUP = re.compile(r"HCOOH|COOH|HO|OH|CH3|CH2|CH|C|=|\((CH3|C2H5|OH)\)(\d?)")


def _read_chain(formula: str) -> tuple[list[dict], set[int], int | None]:
    """The written main chain of a shortened structural formula: each carbon's branches and -OH,
    the carbons a double bond starts at, and the carboxyl carbon (if any)."""
    carbons: list[dict] = []
    doubles: set[int] = set()
    carboxyl = None
    hydroxyl_next = False
    for m in _GROUP.finditer(formula):
        token = m[0]
        if token in ("HCOOH", "COOH"):
            carboxyl = len(carbons)
            carbons.append({"branches": [], "oh": False})
        elif token == "HO":
            hydroxyl_next = True
        elif token == "OH":
            carbons[-1]["oh"] = True
        elif token == "=":
            doubles.add(len(carbons) - 1)
        elif token.startswith("("):
            if m[1] == "OH":
                carbons[-1]["oh"] = True
            else:
                carbons[-1]["branches"] += ["methyl" if m[1] == "CH3" else "ethyl"] * int(m[2] or 1)
        else:
            carbons.append({"branches": [], "oh": hydroxyl_next})
            hydroxyl_next = False
    return carbons, doubles, carboxyl


def _systematic_name(p: dict) -> str:
    carbons, doubles, carboxyl = _read_chain(p["formula"])
    n = len(carbons)

    def numbering(forward: bool) -> tuple:
        at = (lambda i: i + 1) if forward else (lambda i: n - i)
        oh = sorted(at(i) for i, c in enumerate(carbons) if c["oh"])
        double = sorted(min(at(i), at(i + 1)) for i in doubles)
        branch = sorted(at(i) for i, c in enumerate(carbons) for _ in c["branches"])
        first = [0 if carboxyl is None or at(carboxyl) == 1 else 1]
        return first, oh, double, branch, at

    forward, backward = numbering(True), numbering(False)
    _, oh, double, _, at = min(forward, backward, key=lambda t: t[:4])
    by_kind: dict[str, list[int]] = {}
    for i, c in enumerate(carbons):
        for b in c["branches"]:
            by_kind.setdefault(b, []).append(at(i))
    prefix = "".join(f"{','.join(map(str, sorted(locs)))}-{'di' if len(locs) == 2 else ''}{kind}"
                     for kind, locs in sorted(by_kind.items()))
    stem = CHAIN_STEMS[n]
    if carboxyl is not None:
        return f"{prefix}{stem}anoic acid"
    if oh:
        return f"{prefix}{stem}anol" if n <= 2 else f"{prefix}{stem}an-{oh[0]}-ol"
    if double:
        return f"{prefix}{stem}ene" if n <= 3 else f"{prefix}{stem}-{double[0]}-ene"
    return f"{prefix}{stem}ane"


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _with_subscripts(formula: str) -> str:
    """'C6H14' as printed: the numbers after symbols as subscripts, a count of 1 left out."""
    return re.sub(r"(?<=[A-Z])1(?!\d)", "", formula).translate(_SUBSCRIPTS)


def _molecular_formula(p: dict) -> str:
    n, series = p["n"], p["series"]
    if series == "alkane":
        return _with_subscripts(f"C{n}H{2 * n + 2}")
    if series in ("alkene", "cycloalkane"):
        return _with_subscripts(f"C{n}H{2 * n}")
    if series == "alcohol":                    # one hydrogen of the alkane replaced by -OH
        return _with_subscripts(f"C{n}H{2 * n + 1}") + "OH"
    if n == 1:
        return "HCOOH"
    return _with_subscripts(f"C{n - 1}H{2 * (n - 1) + 1}") + "COOH"   # an alkyl group plus -COOH


def _fuel_energy(p: dict) -> float:
    kilograms = Decimal(p["water"]) / 1000         # 1 cm^3 of water has a mass of 1 g
    energy = float(Decimal(repr(SPECIFIC_HEAT_WATER)) * kilograms * p["rise"])
    if p["mode"] != "per_gram":
        return _half_up(energy, 2)
    fuel_burned = _half_up(p["burner"] - _half_up(p["burner"] - p["burned"], 2), 2)   # both masses to 0.01 g
    return _half_up(energy / fuel_burned, 1)


# --------------------------------------------------------------------------
# Chemistry in society


def _percentage_composition(p: dict) -> float:
    atoms = atom_counts(p["compound"])
    element = p["element"]
    return _half_up(atoms[element] * RAM[element] / formula_mass(p["compound"]) * 100, 1)


# The electrochemical series as the data booklet lists these metals, the most easily oxidised first.
ELECTROCHEMICAL_SERIES = ["magnesium", "aluminium", "zinc", "iron", "nickel", "tin", "lead", "copper", "silver"]


def _electron_flow(p: dict) -> str:
    giver, taker = sorted((p["metal_a"], p["metal_b"]), key=ELECTROCHEMICAL_SERIES.index)
    return f"from {giver} to {taker} through the wires"


# Half-lives of the radioisotopes (days, hours or years, as the item states them).
HALF_LIVES = {"iodine-131": 8, "phosphorus-32": 14, "radon-222": 3.8, "sodium-24": 15, "technetium-99m": 6,
              "cobalt-60": 5.3, "strontium-90": 29, "caesium-137": 30, "carbon-14": 5730, "hydrogen-3": 12.3,
              "americium-241": 432}


def _half_life(p: dict) -> float:
    half_life = HALF_LIVES[p["isotope"]]
    if p["mode"] == "mass_left":
        mass = p["m0"]
        for _ in range(p["halvings"]):
            mass /= 2
        return _half_up(mass, 4)
    if p["mode"] == "time_taken":
        return _half_up(p["halvings"] * half_life, 4)
    elapsed = _half_up(p["halvings"] * half_life, 2)     # the time printed in the question
    return _half_up(elapsed / p["halvings"], 4)


SOCIETY_TERMS = {
    "haber": "Haber process", "ostwald": "Ostwald process", "addition": "addition", "monomer": "monomers",
    "polymer": "polymers", "electrolysis": "electrolysis", "alloy": "alloy", "isotopes": "isotopes",
    "half_life": "half-life", "radioisotope": "radioisotope", "fission": "fission", "oxidation": "oxidation",
    "reduction": "reduction", "redox": "redox", "extraction": "reduction", "ion_bridge": "ion bridge",
    "catalyst": "catalyst", "precipitation": "precipitation", "titration": "titration", "alpha": "alpha",
    "beta": "beta", "gamma": "gamma", "iron": "iron", "platinum": "platinum", "dc": "direct current",
    "potassium": "potassium", "ammonium": "ammonium", "most_penetrating": "gamma", "least_penetrating": "alpha",
    "beta_stopped": "beta", "fusion": "fusion", "reversible": "reversible",
}


def _society_terms(p: dict) -> str:
    return SOCIETY_TERMS[p["prompt"]]


# --------------------------------------------------------------------------
# Chemical analysis and calculations


def _titration(p: dict) -> float:
    first = _half_up(p["t1"], 1)
    second = _half_up(p["t1"] + p["gap"], 1)
    rough = _half_up(p["t1"] + p["rough_extra"], 1)
    # The concordant pair: the two repeat titres agree within 0.2 cm^3; the rough one does not count.
    assert abs(second - first) <= 0.2 + 1e-9 and rough - second > 0.1
    titre_cm3 = (Decimal(repr(first)) + Decimal(repr(second))) / 2
    moles_acid = Decimal(repr(p["c_acid"])) * titre_cm3 / 1000
    alkali_per_acid = 2 if p["acid"] == "sulfuric" else 1        # H2SO4 + 2NaOH; HCl + NaOH
    concentration = moles_acid * alkali_per_acid / (Decimal(repr(p["v_alkali"])) / 1000)
    return _sig_figs(float(concentration), 3)


# Flame colours from the data booklet.
FLAME_COLOURS = {"barium": "green", "calcium": "orange-red", "copper": "blue-green", "lithium": "red",
                 "potassium": "lilac", "sodium": "yellow", "strontium": "red"}


def _flame_tests(p: dict) -> str:
    metal = p["metal"]
    named = "copper(II)" if metal == "copper" else metal
    if p["mode"] == "colour":
        return FLAME_COLOURS[metal]
    if p["mode"] == "metal":
        matches = [m for m, colour in FLAME_COLOURS.items() if colour == FLAME_COLOURS[metal]]
        assert matches == [metal], "a colour two metals share cannot identify one"
        return f"{named} ions"
    return f"{named} {p['anion']}"


GAS_TEST_RESULTS = {
    "hydrogen": "It burns with a pop when a lit splint is held near it.",
    "oxygen": "It relights a glowing splint.",
    "carbon dioxide": "It turns limewater cloudy.",
    "ammonia": "It turns damp red litmus paper blue.",
    "chlorine": "It bleaches damp litmus paper.",
}
TESTED_GASES = {"h2": "hydrogen", "o2": "oxygen", "co2": "carbon dioxide", "nh3": "ammonia", "cl2": "chlorine"}


def _gas_given_off(reaction: str) -> str:
    if "carbonate" in reaction or "burning" in reaction:
        return "carbon dioxide"          # carbonates with acid or heat; hydrocarbons burning
    if "ammonium" in reaction:
        return "ammonia"                 # ammonium compounds warmed with an alkali
    if "electrolysis" in reaction and "chloride" in reaction:
        return "chlorine"                # chloride ions oxidised at the positive electrode
    if "peroxide" in reaction or "pondweed" in reaction:
        return "oxygen"                  # decomposition of hydrogen peroxide; photosynthesis
    return "hydrogen"                    # metals with acids or water


def _gas_tests(p: dict) -> str:
    context = p["context"]
    if context.startswith("result_"):
        return TESTED_GASES[context.split("_")[1]]
    return GAS_TEST_RESULTS[_gas_given_off(context)]


ORACLES = {
    "SQA.CHEM.N5.GRAM_FORMULA_MASS": _gram_formula_mass,
    "SQA.CHEM.N5.MOLES": _moles,
    "SQA.CHEM.N5.CONCENTRATION": _concentration,
    "SQA.CHEM.N5.MASS_FROM_EQUATION": _mass_from_equation,
    "SQA.CHEM.N5.AVERAGE_RATE": _average_rate,
    "SQA.CHEM.N5.ATOMIC_PARTICLES": _atomic_particles,
    "SQA.CHEM.N5.BONDING_FROM_PROPERTIES": _bonding,
    "SQA.CHEM.N5.PH_OF_SOLUTIONS": _ph_of_solutions,
    "SQA.CHEM.N5.SALT_NAMING": _salt_naming,
    "SQA.CHEM.N5.HOMOLOGOUS_SERIES": _homologous_series,
    "SQA.CHEM.N5.SYSTEMATIC_NAMES": _systematic_name,
    "SQA.CHEM.N5.MOLECULAR_FORMULA": _molecular_formula,
    "SQA.CHEM.N5.FUEL_ENERGY": _fuel_energy,
    "SQA.CHEM.N5.PERCENTAGE_COMPOSITION": _percentage_composition,
    "SQA.CHEM.N5.ELECTRON_FLOW": _electron_flow,
    "SQA.CHEM.N5.HALF_LIFE": _half_life,
    "SQA.CHEM.N5.SOCIETY_TERMS": _society_terms,
    "SQA.CHEM.N5.TITRATION": _titration,
    "SQA.CHEM.N5.FLAME_TESTS": _flame_tests,
    "SQA.CHEM.N5.GAS_TESTS": _gas_tests,
}
