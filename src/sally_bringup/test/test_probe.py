"""The probe's own behaviour on loopback DDS: what it keeps of a topic it no longer needs, and the
service clients it reuses (nothing it made is destroyed while it spins)."""

import pytest
from std_msgs.msg import String
from std_srvs.srv import Trigger

pytestmark = [pytest.mark.graph, pytest.mark.timeout(60)]


def test_a_retired_recording_keeps_only_the_latest_message_until_the_probe_closes(probe):
    rec = probe.record(String, "/probe_test/chatter")
    pub = probe.publisher(String, "/probe_test/chatter")
    probe.wait_for_subscribers(pub)
    for text in ("a", "b", "c"):
        pub.publish(String(data=text))
    probe.wait_for_messages(rec, 3)
    probe.retire(rec)
    assert len(rec) == 0 and rec.subscription in probe.node.subscriptions, "it stays until close"
    for text in ("d", "e"):
        pub.publish(String(data=text))
    probe.wait_for(lambda: rec.last is not None and rec.last.data == "e", 10.0, "the latest message")
    assert len(rec) == 1


def test_a_service_client_is_made_once_and_kept_for_the_next_calls(probe):
    calls = []

    def answer(request, response):
        calls.append(request)
        response.success, response.message = True, f"call {len(calls)}"
        return response

    probe.node.create_service(Trigger, "/probe_test/trigger", answer)
    first = probe.call(Trigger, "/probe_test/trigger", Trigger.Request(), timeout=10.0)
    clients = list(probe.node.clients)
    second = probe.call(Trigger, "/probe_test/trigger", Trigger.Request(), timeout=10.0)
    assert (first.message, second.message) == ("call 1", "call 2")
    assert list(probe.node.clients) == clients and len(clients) == 1
