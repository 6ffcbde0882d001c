"""Marking by ip_address and cidr."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, mark_answer
from tests.marking.helpers import ok


IP = MarkingSpec("ip_address", "192.168.1.0", misconceptions={"broadcast": "192.168.1.255"},
                 misconception_tags={"broadcast": "network_vs_broadcast"})


@pytest.mark.parametrize("answer", ["192.168.1.0", "192.168.001.000", " 192 . 168 . 1 . 0 ", "192.168.1.0.",
                                    "１９２.168.1.0"])
def test_ip_address_variants(answer):
    r = mark_answer(IP, answer)
    assert r.correct and r.normalised_answer == "192.168.1.0"


@pytest.mark.parametrize("answer", ["192.168.1.256", "192.168.1", "192.168.1.0.0", "192.168.1.-1", "c0.a8.1.0",
                                    "192.168.1.0/24"])
def test_invalid_ip_addresses(answer):
    r = mark_answer(IP, answer)
    assert not r.correct and r.feedback == "That is not a valid IPv4 address."


def test_ip_misconception():
    r = mark_answer(IP, "192.168.001.255")
    assert not r.correct and r.misconception == "broadcast" and r.gap_tags == ["network_vs_broadcast"]


CIDR = MarkingSpec("cidr", "10.0.0.0/8")


@pytest.mark.parametrize("answer", ["10.0.0.0/8", "10.0.0.0 /8", "10.0.0.0 / 8", "10.0.0.0 255.0.0.0",
                                    "10.0.0.0/255.0.0.0", "010.000.000.000/08", "10.0.0.0/8."])
def test_cidr_variants(answer):
    r = mark_answer(CIDR, answer)
    assert r.correct and r.normalised_answer == "10.0.0.0/8"


@pytest.mark.parametrize("answer, feedback", [
    ("10.0.0.0/16", "The address is right but the prefix length is not."),
    ("10.1.2.3/8", "That's not the right network."),
    ("10.0.0.0 255.0.255.0", "That is not a valid subnet mask."),
    ("10.0.0.0 0.255.255.255", "That is not a valid subnet mask."),
    ("10.0.0.0/33", "A prefix length must be from 0 to 32."),
    ("10.0.0.0", "Write the network as an address and prefix, such as 10.0.0.0/8."),
    ("10.0.0.256/8", "The address part is not a valid IPv4 address."),
])
def test_cidr_wrong(answer, feedback):
    r = mark_answer(CIDR, answer)
    assert not r.correct and r.feedback == feedback


def test_cidr_key_in_mask_form():
    assert ok(MarkingSpec("cidr", "172.16.0.0 255.255.240.0"), "172.16.0.0/20")
