# ctest's python_install: a fresh virtual environment in WORK, and the package
# installed into it from a copy of SRC (pip builds in the tree it is given, and the
# build leaves files there), offline, with Debian's setuptools as the build backend.
foreach(v PYTHON SRC WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install.cmake needs -D${v}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK}/venv ${WORK}/src)
file(COPY ${SRC}/ DESTINATION ${WORK}/src
     PATTERN build EXCLUDE PATTERN *.egg-info EXCLUDE PATTERN __pycache__ EXCLUDE)
run(${PYTHON} -m venv --system-site-packages ${WORK}/venv)
run(${WORK}/venv/bin/python -m pip install --no-index --no-build-isolation
    --disable-pip-version-check --quiet ${WORK}/src)
