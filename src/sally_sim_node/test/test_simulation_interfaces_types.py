"""simulation_interfaces as built here is the standard's release 1.6.1 field for field: every type's
hash (RIHS01, what DDS endpoints compare) equals the one rosidl computes from the upstream definitions
(ros-simulation/simulation_interfaces, tag 1.6.1, commit c6459b7546ab9067ba1b034ffee142ecf0b97b73),
read from the installed type descriptions and, for a message, from a live publisher."""

import json
import os
import sys
from pathlib import Path

import pytest

from simulation_interfaces.msg import EntityState, Result, SimulatorFeatures
from simulation_interfaces.srv import StepSimulation

UPSTREAM_1_6_1 = {
    "action/SimulateSteps": "f0837c898e1219cd73bf4c041feab41e8c533e8e1057e982744dba7b093467eb",
    "msg/Bounds": "e8624fe51f0f5548197542697d924c5699ac7198f1e4c68e50c3ca2af73f5b3f",
    "msg/EntityCategory": "43bdf7933fddf75f6970f7a8fe7078524355d821d390b3954bb46ac36c03dfe1",
    "msg/EntityFilters": "8e7b12e8ea062f14c55de4877221fe1b7cd9749665a7ad8a4ab855fc4b148303",
    "msg/EntityInfo": "3b9a2e7fa00f9a59d325b6e47904044c421561a385682027c7fc06c359806319",
    "msg/EntityState": "2e0464a85eb80a939025075d6c20761eca6a4cb9d6baf2c0ba373467c8b598d0",
    "msg/NamedPose": "b32da2a039b1840f605ec025b7991a18efacac662fac272818d1ae6e2b12bc27",
    "msg/Resource": "2bb1939cf80f8d2f284afba53cbec60b5ff33759bd39b714128ea8867a34c51a",
    "msg/Result": "cf43a306adff3337a0a47143d8f5689933bc70a30478f13b077dc1fe3bc5ad17",
    "msg/SimulationState": "bb9f87ccdd98fba113052a512d9801e84ce732d0a2b3c2b0cb281828de36e415",
    "msg/SimulatorFeatures": "8b101c8529bc0ea3dcf056078254768f39832b9ef0adaf93bd5cea96c0de3305",
    "msg/SpawnEntity": "94a349a865ccf673c18c080520299c88c3d8d5f4842ecf1482d6c997ac4b69f9",
    "msg/SpawnResult": "dbc277304b6c24bfb2a631cea8f52e2b005d583ec0a6c86b11613f5ce6486da1",
    "msg/Spawnable": "8c22025d840e7a05ab31ba56f998b06458b549a9744b4695be25b778829fc176",
    "msg/TagsFilter": "5c3efc51e8ed04c266c09cb4691ec95b964cd410558e01d8c83646b038826b45",
    "msg/WorldResource": "e3b65ecf904b9b115673e4a343c6aa3d28c19e185a71228faa64b783afcf2403",
    "srv/DeleteEntity": "ff7e96a5b83dc8e2bb34b8b034480028b3a24d9f8376b2c0590bac3704be3e28",
    "srv/GetAvailableWorlds": "ce5589b5523f2732d1969a3c5a7e6b17a387091df8190c62f78d7fdd1109e3e3",
    "srv/GetCurrentWorld": "79ed4e910e1b7a1c9f7950ff758bfba3535bf0dec669054e8af115a099724ddd",
    "srv/GetEntities": "cb90004c48cd50f37732fb008e22c34c261dd680a723bf0f85d8437ea4498bf7",
    "srv/GetEntitiesStates": "0a76170d0c1c90e1eaf805cfab78ea801d1f82df309a28c1f0fae4b570f19754",
    "srv/GetEntityBounds": "17be8d36231178a5eed0de0344b55c19975581627a9aec30a4fee9926a35deed",
    "srv/GetEntityInfo": "953b7ab6bfc35063f5c9a72463c6ce489baa10249a7fa510926d342a34b0d29e",
    "srv/GetEntityState": "749c91f2a2353d98367b64f2995a0f5842ce92a08ec1ffb3e185540a91557fb5",
    "srv/GetNamedPoseBounds": "59fa8dd2c68ba6771160cc66a628ac99fa95e2748fa0a43c2cc62a2e5f3f6fdc",
    "srv/GetNamedPoses": "c3d12ab920115bfd4733f6d20516adc3968fb438538540997c37e200e02b04e3",
    "srv/GetSimulationState": "3362dcebee4b1afebbf9c4beee5c79c1455385aded62092a892d61fde8644f30",
    "srv/GetSimulatorFeatures": "abb9439c8cf196722a469fb6c68b44b484f198c2a1356ac38849a29c2a20a794",
    "srv/GetSpawnables": "3bc0266bf8236058ff589c44512e013afe4f295427c39d44cff363d1c956bf36",
    "srv/LoadWorld": "f210682338f195f6f06191b46b20ec4992bddf485d33e2cffab2dd15341b4e3e",
    "srv/ResetSimulation": "4ce285d7ff9b8ac70dcc95161f32bf54c05a6f4b13427990e41ab40c36c39646",
    "srv/SetEntityInfo": "867fe2b6812f3e021859171f9b788560d66bb7079d640030baf6c0bb2dd2631e",
    "srv/SetEntityState": "ca210e7d2b66629ae133c8e1edf5246e618106d75c78ed0556c0e7a33c59ee5e",
    "srv/SetSimulationState": "a868b916dce49974f637ba252141258c4b07b0c06858b88af560e3eb6bfbcb30",
    "srv/SpawnEntities": "41703a359ee032bf4fc230f144f531705ba039a2e97edeae1f7997dd83b04857",
    "srv/SpawnEntity": "d4c086345d4194a5fc4c9ae45095736ca4062b5cdac4d06a42dec93d683e03cf",
    "srv/StepSimulation": "913fe0653690ce6bf8f09f316e6a626747012e9fca31e26719910d417aa8565c",
    "srv/UnloadWorld": "ac7f9a73df1b5b15015d854c5ac552b7726506e22f886c6792804f0b7f88b30b",
}
"""Type (under simulation_interfaces/) -> its RIHS01 hash, as rosidl computes it from the upstream 1.6.1
.msg/.srv/.action files."""


def installed(type_name: str) -> str:
    package, kind, name = type_name.split("/")
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) + [sys.prefix]:
        path = Path(prefix) / "share" / package / kind / f"{name}.json"
        if path.exists():
            hashes = json.loads(path.read_text())["type_hashes"]
            return next(h["hash_string"] for h in hashes if h["type_name"] == type_name)
    raise AssertionError(f"no type description of {type_name} installed")


@pytest.mark.unit
@pytest.mark.parametrize("type_name", sorted(UPSTREAM_1_6_1))
def test_each_type_hash_is_the_standards(type_name):
    assert installed(f"simulation_interfaces/{type_name}") == f"RIHS01_{UPSTREAM_1_6_1[type_name]}"


@pytest.mark.unit
def test_the_fields_the_sim_answers_with():
    assert EntityState.get_fields_and_field_types() == {
        "header": "std_msgs/Header",
        "pose": "geometry_msgs/Pose",
        "twist": "geometry_msgs/Twist",
        "acceleration": "geometry_msgs/Accel",
    }
    assert Result.get_fields_and_field_types() == {"result": "uint8", "error_message": "string"}
    assert SimulatorFeatures.get_fields_and_field_types() == {
        "features": "sequence<uint16>",
        "spawn_formats": "sequence<string>",
        "custom_info": "string",
    }
    assert StepSimulation.Request.get_fields_and_field_types() == {"steps": "uint64"}


@pytest.mark.graph
def test_a_live_publisher_carries_the_standards_hash(ros_domain):
    from sally_bringup.probe import Probe

    with Probe(ros_domain) as probe:
        publisher = probe.publisher(EntityState, "/entity_state_hash_check")
        info = probe.node.get_publishers_info_by_topic(publisher.topic_name)
        assert [str(i.topic_type_hash) for i in info] == [f"RIHS01_{UPSTREAM_1_6_1['msg/EntityState']}"]
