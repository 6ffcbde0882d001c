"""Oracles for the arithmetic (MATH.ARITH.*) and IPv4 subnetting (NET.IP.*) skills.

Written from the skill statements in plain Python; the networking answers
come from the standard ``ipaddress`` module, not from the project's helpers.
"""
from __future__ import annotations

import ipaddress


def _add(p: dict) -> int:
    return p["operand_1"] + p["operand_2"]


def _sub(p: dict) -> int:
    return p["operand_1"] - p["operand_2"]


def _mul(p: dict) -> int:
    return p["operand_1"] * p["operand_2"]


def _div(p: dict) -> int:
    quotient, remainder = divmod(p["operand_1"], p["operand_2"])
    # Every division item is meant to have a whole-number answer.
    assert remainder == 0, f"{p['operand_1']} / {p['operand_2']} leaves a remainder"
    return quotient


def _interface(p: dict) -> ipaddress.IPv4Interface:
    address = ".".join(str(p[f"ip_octet_{i}"]) for i in range(1, 5))
    return ipaddress.IPv4Interface(f"{address}/{p['cidr']}")


def _network(p: dict) -> str:
    return str(_interface(p).network.network_address)


def _broadcast(p: dict) -> str:
    return str(_interface(p).network.broadcast_address)


def _hosts(p: dict) -> int:
    network = _interface(p).network
    # Usable hosts: every address but the network and broadcast addresses
    # (the blueprints keep prefixes at /30 or shorter).
    return network.num_addresses - 2


def _mask(p: dict) -> str:
    return str(_interface(p).network.netmask)


ORACLES = {
    "MATH.ARITH.ADD.1DIGIT": _add,
    "MATH.ARITH.ADD.2DIGIT": _add,
    "MATH.ARITH.ADD.3DIGIT": _add,
    "MATH.ARITH.SUB.1DIGIT": _sub,
    "MATH.ARITH.SUB.2DIGIT": _sub,
    "MATH.ARITH.SUB.BORROW": _sub,
    "MATH.ARITH.MUL.SINGLE": _mul,
    "MATH.ARITH.MUL.BY10": _mul,
    "MATH.ARITH.MUL.2BY1": _mul,
    "MATH.ARITH.DIV.SINGLE": _div,
    "MATH.ARITH.DIV.BY10": _div,
    "MATH.ARITH.DIV.2BY1": _div,
    "NET.IP.SUBNET.NETWORK": _network,
    "NET.IP.SUBNET.BROADCAST": _broadcast,
    "NET.IP.SUBNET.HOSTS": _hosts,
    "NET.IP.CIDR.MASK": _mask,
}
