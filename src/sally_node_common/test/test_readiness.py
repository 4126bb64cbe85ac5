from sally_node_common.readiness import missing_readers


def test_ready_once_every_output_has_matched_readers_and_the_named_nodes_read():
    seen = {"/sally/magnet_cmd": ["sally_sim", "recorder"], "/sally/ik_target": ["sally_ik"]}
    assert missing_readers(seen, {"/sally/magnet_cmd": 2, "/sally/ik_target": 1}, ["sally_sim", "sally_ik"]) == []


def test_waits_for_an_output_without_reader_an_unmatched_one_and_a_named_node():
    seen = {"/sally/magnet_cmd": ["recorder"], "/sally/ik_target": []}
    assert missing_readers(seen, {"/sally/magnet_cmd": 0}, ["sally_sim"]) == [
        "/sally/magnet_cmd matched with 0 of 1 readers",
        "a reader of /sally/ik_target",
        "node sally_sim",
    ]
