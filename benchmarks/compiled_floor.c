// The compiled floor of Sally's 1 kHz round trip, against rcl's C API from the venv's ROS 2 wheels
// (no rclcpp: rcl, rmw and the C type support are all a compiled node needs). Built and run by
// benchmarks/compiled_floor.py, which says what it measures.
//
//   compiled_floor one J N    one process, one thread: a "sim" node publishes a JointState of J joints,
//                             a "controller" node takes it and publishes efforts (a PD law), the sim
//                             takes them; both messages serialized once more, as a recorder would.
//                             N round trips; prints {"cpu_us": ..., "wall_us": ...} per round trip.
//   compiled_floor sim J N    the sim's side of the same over DDS between two processes.
//   compiled_floor ctrl J     the controller's side: answers until nothing comes for 5 s, then prints
//                             {"cpu_us": ..., "answered": ...} (CPU per answer after the first).
#include <rcl/rcl.h>
#include <rcutils/error_handling.h>
#include <rmw/rmw.h>
#include <rmw/serialized_message.h>
#include <rosidl_runtime_c/primitives_sequence_functions.h>
#include <rosidl_runtime_c/string_functions.h>
#include <sensor_msgs/msg/joint_state.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                                                 \
  do {                                                                                           \
    rcl_ret_t r_ = (x);                                                                          \
    if (r_ != RCL_RET_OK) {                                                                      \
      fprintf(stderr, "compiled_floor: %s failed (%d): %s\n", #x, (int)r_,                       \
              rcutils_get_error_string().str);                                                   \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

typedef sensor_msgs__msg__JointState JointState;

static double now(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void sleep_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

static void joint_state(JointState *msg, int joints) {
  sensor_msgs__msg__JointState__init(msg);
  rosidl_runtime_c__String__Sequence__init(&msg->name, joints);
  for (int i = 0; i < joints; i++) {
    char name[32];
    snprintf(name, sizeof name, "joint_%02d", i);
    rosidl_runtime_c__String__assign(&msg->name.data[i], name);
  }
  rosidl_runtime_c__double__Sequence__init(&msg->position, joints);
  rosidl_runtime_c__double__Sequence__init(&msg->velocity, joints);
  rosidl_runtime_c__double__Sequence__init(&msg->effort, joints);
}

static void endpoints(rcl_node_t *node, const char *out, const char *in, rcl_publisher_t *pub,
                      rcl_subscription_t *sub) {
  const rosidl_message_type_support_t *ts = ROSIDL_GET_MSG_TYPE_SUPPORT(sensor_msgs, msg, JointState);
  rcl_publisher_options_t po = rcl_publisher_get_default_options();
  rcl_subscription_options_t so = rcl_subscription_get_default_options();
  po.qos.depth = so.qos.depth = 100;  // reliable, keep last 100: as Sally's lockstep topics
  *pub = rcl_get_zero_initialized_publisher();
  *sub = rcl_get_zero_initialized_subscription();
  CHECK(rcl_publisher_init(pub, node, ts, out, &po));
  CHECK(rcl_subscription_init(sub, node, ts, in, &so));
}

/* Take one message from sub, waiting up to 5 s; 0 when one was taken. */
static int take(rcl_wait_set_t *ws, rcl_subscription_t *sub, JointState *msg) {
  for (;;) {
    CHECK(rcl_wait_set_clear(ws));
    CHECK(rcl_wait_set_add_subscription(ws, sub, NULL));
    if (rcl_wait(ws, RCL_S_TO_NS(5)) == RCL_RET_TIMEOUT) return 1;
    rmw_message_info_t info;
    if (rcl_take(sub, msg, &info, NULL) == RCL_RET_OK) return 0;
  }
}

static void answer(const JointState *state, JointState *efforts) {  // a PD law on the state
  efforts->header = state->header;
  for (size_t i = 0; i < efforts->effort.size && i < state->position.size; i++)
    efforts->effort.data[i] = -500.0 * state->position.data[i] - 30.0 * state->velocity.data[i];
}

static void stamp(JointState *state, int k) {
  state->header.stamp.sec = k / 1000;
  state->header.stamp.nanosec = (unsigned)(k % 1000) * 1000000u;
  for (size_t i = 0; i < state->position.size; i++) state->position.data[i] = 1e-3 * k + (double)i;
}

static void wait_matched(rcl_publisher_t *pub, rcl_subscription_t *sub) {
  size_t readers = 0, writers = 0;
  for (int i = 0; i < 30000 && (readers == 0 || writers == 0); i++) {
    CHECK(rcl_publisher_get_subscription_count(pub, &readers));
    CHECK(rcl_subscription_get_publisher_count(sub, &writers));
    sleep_ms(1);
  }
  if (readers == 0 || writers == 0) {
    fprintf(stderr, "compiled_floor: the other side never matched in 30 s\n");
    exit(1);
  }
}

/* Leave the graph cleanly (Fast DDS removes its shared-memory files as its participant goes). */
static int finish(rcl_context_t *context, rcl_node_t *nodes, rcl_publisher_t *pubs, rcl_subscription_t *subs,
                  rcl_wait_set_t *ws, int code) {
  CHECK(rcl_wait_set_fini(ws));
  for (int i = 0; i < 2; i++) {
    if (!rcl_node_is_valid_except_context(&nodes[i])) continue;
    CHECK(rcl_publisher_fini(&pubs[i], &nodes[i]));
    CHECK(rcl_subscription_fini(&subs[i], &nodes[i]));
    CHECK(rcl_node_fini(&nodes[i]));
  }
  CHECK(rcl_shutdown(context));
  CHECK(rcl_context_fini(context));
  return code;
}

int main(int argc, char **argv) {
  if (argc < 3 || (strcmp(argv[1], "ctrl") != 0 && argc < 4)) {
    fprintf(stderr, "usage: compiled_floor one|sim JOINTS ROUND_TRIPS | compiled_floor ctrl JOINTS\n");
    return 2;
  }
  const char *mode = argv[1];
  int joints = atoi(argv[2]), rounds = argc > 3 ? atoi(argv[3]) : 0;
  rcl_allocator_t alloc = rcl_get_default_allocator();
  rcl_init_options_t options = rcl_get_zero_initialized_init_options();
  CHECK(rcl_init_options_init(&options, alloc));
  rcl_context_t context = rcl_get_zero_initialized_context();
  CHECK(rcl_init(0, NULL, &options, &context));
  rcl_node_options_t node_options = rcl_node_get_default_options();
  rcl_node_t nodes[2] = {rcl_get_zero_initialized_node(), rcl_get_zero_initialized_node()};
  rcl_publisher_t pubs[2];
  rcl_subscription_t subs[2];
  rcl_publisher_t *states = &pubs[0], *efforts = &pubs[1];
  rcl_subscription_t *efforts_in = &subs[0], *states_in = &subs[1];
  if (strcmp(mode, "ctrl") != 0) {  // node 0: the sim
    CHECK(rcl_node_init(&nodes[0], "compiled_floor_sim", "", &context, &node_options));
    endpoints(&nodes[0], "/compiled_floor/states", "/compiled_floor/efforts", states, efforts_in);
  }
  if (strcmp(mode, "sim") != 0) {  // node 1: the controller
    CHECK(rcl_node_init(&nodes[1], "compiled_floor_ctrl", "", &context, &node_options));
    endpoints(&nodes[1], "/compiled_floor/efforts", "/compiled_floor/states", efforts, states_in);
  }
  rcl_wait_set_t ws = rcl_get_zero_initialized_wait_set();
  CHECK(rcl_wait_set_init(&ws, 1, 0, 0, 0, 0, 0, &context, alloc));
  JointState state, taken, out, back;
  joint_state(&state, joints);
  joint_state(&taken, 0);
  joint_state(&out, joints);
  joint_state(&back, 0);
  const rosidl_message_type_support_t *ts = ROSIDL_GET_MSG_TYPE_SUPPORT(sensor_msgs, msg, JointState);
  rcl_serialized_message_t bytes = rmw_get_zero_initialized_serialized_message();
  CHECK(rmw_serialized_message_init(&bytes, 4096, &alloc));

  if (strcmp(mode, "ctrl") == 0) {
    long answered = 0;
    double first = 0.0, last = 0.0;  // CPU from the first answer to the last
    while (!take(&ws, states_in, &taken)) {  // until the sim is done
      if (answered++ == 0) first = now(CLOCK_PROCESS_CPUTIME_ID);
      answer(&taken, &out);
      CHECK(rcl_publish(efforts, &out, NULL));
      last = now(CLOCK_PROCESS_CPUTIME_ID);
    }
    printf("{\"cpu_us\": %.2f, \"answered\": %ld}\n", answered > 1 ? (last - first) / (answered - 1) * 1e6 : 0.0,
           answered);
    return finish(&context, nodes, pubs, subs, &ws, 0);
  }
  if (strcmp(mode, "one") == 0) wait_matched(states, states_in), wait_matched(efforts, efforts_in);
  else wait_matched(states, efforts_in);
  double wall0 = now(CLOCK_MONOTONIC), cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
  for (int k = 0; k < rounds; k++) {
    stamp(&state, k);
    CHECK(rcl_publish(states, &state, NULL));
    if (strcmp(mode, "one") == 0) {
      if (take(&ws, states_in, &taken)) return fprintf(stderr, "compiled_floor: no state\n"), 1;
      answer(&taken, &out);
      CHECK(rcl_publish(efforts, &out, NULL));
      CHECK(rmw_serialize(&state, ts, &bytes));  // the recording's copies
      CHECK(rmw_serialize(&out, ts, &bytes));
    }
    if (take(&ws, efforts_in, &back)) return fprintf(stderr, "compiled_floor: no efforts\n"), 1;
  }
  double wall = now(CLOCK_MONOTONIC) - wall0, cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  printf("{\"cpu_us\": %.2f, \"wall_us\": %.2f}\n", cpu / rounds * 1e6, wall / rounds * 1e6);
  return finish(&context, nodes, pubs, subs, &ws, 0);
}
