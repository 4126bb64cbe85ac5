"""MessageFields: the one converter of the flat records pairs a dataclass with a message by name and
type, and refuses a pairing that has drifted apart when it is made."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from sally_interfaces.msg import IKStatus, MagnetState
from sally_node_common.ik_status_msg import IKCode, IKStatusData
from sally_node_common.magnet_array_msg import MagnetReadingData as Magnet
from sally_node_common.message_fields import MessageFields


def test_fields_go_by_their_declared_types_both_ways():
    fields = MessageFields(Magnet, MagnetState)
    msg = fields.to_msg(Magnet("FL", np.bool_(True), np.float64(2.5), 1))  # type: ignore[arg-type]
    assert (msg.foot, msg.enabled, msg.contact_reading, msg.contact_sensed) == ("FL", True, 2.5, True)
    back = fields.from_msg(msg)
    assert back == Magnet("FL", True, 2.5, True) and type(back.contact_reading) is float
    assert fields.from_msg(msg, contact_reading=np.float64(3.0)).contact_reading == 3.0  # a checked value
    status = MessageFields(IKStatusData, IKStatus, {"code": "status"})
    out = status.to_msg(IKStatusData(IKCode.STALLED, "FR", 0.1, 0.2, 0.003, "x"))
    assert out.status == 2 and status.from_msg(out).code is IKCode.STALLED


def test_a_pairing_that_drifted_apart_is_refused_by_name():
    @dataclass(frozen=True)
    class Short:
        foot: str
        enabled: bool

    with pytest.raises(TypeError, match=r"MagnetState's fields \['contact_reading', 'contact_sensed'\] pair with"):
        MessageFields(Short, MagnetState)

    @dataclass(frozen=True)
    class Extra(Magnet):
        colour: str = ""

    with pytest.raises(TypeError, match="Extra.colour <-> MagnetState.colour: MagnetState has no field 'colour'"):
        MessageFields(Extra, MagnetState)

    @dataclass(frozen=True)
    class Arrays:
        foot: str
        enabled: np.ndarray
        contact_reading: float
        contact_sensed: bool

    with pytest.raises(TypeError, match="Arrays.enabled <-> MagnetState.enabled: a flat record's field is bool"):
        MessageFields(Arrays, MagnetState)
