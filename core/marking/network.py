"""IPv4 addresses and networks (a prefix length or a subnet mask) as students write them."""
from __future__ import annotations

import ipaddress
import re
import unicodedata
from typing import Optional, Union


def _read_ipv4(text: str) -> Optional[ipaddress.IPv4Address]:
    s = "".join(unicodedata.normalize("NFKC", text).split())
    if s.endswith(".") and s.count(".") == 4:
        s = s[:-1]
    parts = s.split(".")
    if len(parts) != 4 or not all(re.fullmatch(r"[0-9]{1,3}", p) for p in parts):
        return None
    values = [int(p) for p in parts]    # int() drops leading zeros: 192.168.001.000 is 192.168.1.0
    if any(v > 255 for v in values):
        return None
    return ipaddress.IPv4Address(bytes(values))


def _mask_prefix(mask: ipaddress.IPv4Address) -> Optional[int]:
    m = int(mask)
    p = bin(m).count("1")
    return p if m == (0xFFFFFFFF << (32 - p)) & 0xFFFFFFFF else None


def _read_cidr(text: str) -> Union[ipaddress.IPv4Interface, str]:
    """'10.0.0.0/8', '10.0.0.0 /8', '10.0.0.0 255.0.0.0' or '10.0.0.0/255.0.0.0'; else a reason."""
    s = " ".join(unicodedata.normalize("NFKC", text).split())
    if s.endswith(".") and s.count(".") in (4, 7):
        s = s[:-1]
    if "/" in s:
        address, _, rest = s.partition("/")
        rest = rest.strip()
    else:
        parts = s.split(" ")
        if len(parts) != 2:
            return "Write the network as an address and prefix, such as 10.0.0.0/8."
        address, rest = parts
    ip = _read_ipv4(address)
    if ip is None:
        return "The address part is not a valid IPv4 address."
    if re.fullmatch(r"[0-9]{1,2}", rest):
        prefix = int(rest)
        if prefix > 32:
            return "A prefix length must be from 0 to 32."
    else:
        mask = _read_ipv4(rest)
        if mask is None:
            return "Write the network as an address and prefix, such as 10.0.0.0/8."
        prefix = _mask_prefix(mask)
        if prefix is None:
            return "That is not a valid subnet mask."
    return ipaddress.IPv4Interface((int(ip), prefix))
