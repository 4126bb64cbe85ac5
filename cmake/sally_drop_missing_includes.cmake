# The ROS 2 PyPI wheels export targets whose INTERFACE_INCLUDE_DIRECTORIES name the directory they
# were built in (under /opt/python/), which does not exist here; CMake refuses such targets.
# sally_drop_missing_includes() keeps only include directories that exist (of the targets imported
# in this directory and in the directories given). A no-op on a regular ROS 2 install.
function(sally_drop_missing_includes)
  get_property(targets DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(dir ${ARGN})
    get_property(more DIRECTORY ${dir} PROPERTY IMPORTED_TARGETS)
    list(APPEND targets ${more})
  endforeach()
  foreach(target ${targets})
    get_target_property(includes ${target} INTERFACE_INCLUDE_DIRECTORIES)
    if(includes)
      set(kept "")
      foreach(inc ${includes})
        if(inc MATCHES "^\\$<" OR EXISTS "${inc}")
          list(APPEND kept "${inc}")
        endif()
      endforeach()
      set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${kept}")
    endif()
  endforeach()
endfunction()
