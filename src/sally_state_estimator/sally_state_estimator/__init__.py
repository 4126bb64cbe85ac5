"""Sally's state estimator: main_frame's pose from the IMU, the legs that hold and the map."""
