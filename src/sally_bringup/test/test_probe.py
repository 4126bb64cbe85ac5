"""The probe's own behaviour on loopback DDS: the service clients it reuses (nothing it made is
destroyed while it spins)."""

import pytest
from std_srvs.srv import Trigger

pytestmark = [pytest.mark.graph, pytest.mark.timeout(60)]


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
