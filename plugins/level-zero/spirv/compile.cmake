# Compiles one program of plugins/shared/opencl-c-kernels to validated SPIR-V for one variant. The
# build runs it with `cmake -P`, once per output (plugins/level-zero/CMakeLists.txt):
#
#   clang-14 -target spir64 -x cl -O2 -emit-llvm -S   OpenCL C -> LLVM IR (text)
#   (freeze -> bitcast)                               see 1. below
#   clang-14 -c -emit-llvm                            LLVM IR (text) -> bitcode
#   llvm-spirv-14 --spirv-max-version=1.2             bitcode -> SPIR-V
#   bp_spirv_order_blocks                             see 2. below
#   spirv-val --target-env opencl1.2                  a module that fails fails the build
#
# What llvm-spirv-14 cannot take from LLVM 14's optimiser, and how it is avoided:
# 1. `freeze`, which DivRemPairs puts on the operands when it turns `a % b` next to `a / b`
#    into `a - (a / b) * b`; SPIR-V has no such instruction. Later translators drop it and
#    use its operand (KhronosGroup/SPIRV-LLVM-Translator#1140, #2087); here each
#    `%x = freeze T %v` becomes the no-op `%x = bitcast T %v to T`.
# 2. Blocks out of dominance order (LLVM leaves a loop's exit before the loop, SPIR-V wants
#    every block after its dominators): bp_spirv_order_blocks (order_blocks.cpp) rewrites
#    each function's blocks in reverse post-order.
# 3. Vector reduction intrinsics from the loop and SLP vectorisers: -fno-vectorize
#    -fno-slp-vectorize. A GPU runs work-items in SIMD lanes already; the driver's compiler
#    does its own vectorising.
#
# Variables (-D): CLANG, LLVM_SPIRV, SPIRV_VAL, ORDER_BLOCKS (the tools), SOURCE, PRELUDE,
# OUTPUT (the .spv), OPTIONS (the common build options) and DEFINES (the -D options), each a
# space-separated command line, WORK_DIR (intermediate files), DEPFILE (the headers the
# source includes, for the build tool).
foreach(var CLANG LLVM_SPIRV SPIRV_VAL ORDER_BLOCKS SOURCE PRELUDE OUTPUT WORK_DIR DEPFILE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "spirv/compile.cmake: ${var} not set")
  endif()
endforeach()

separate_arguments(options UNIX_COMMAND "${OPTIONS}")
separate_arguments(defines UNIX_COMMAND "${DEFINES}")
get_filename_component(name ${OUTPUT} NAME)
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${WORK_DIR} ${out_dir})
set(ll ${WORK_DIR}/${name}.ll)
set(bc ${WORK_DIR}/${name}.bc)
set(translated ${WORK_DIR}/${name}.translated)
set(ordered ${WORK_DIR}/${name})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "${name}: ${what} failed (${rc}):\n  ${command}\n${out}")
  endif()
endfunction()

run("OpenCL C -> LLVM IR"
    ${CLANG} -target spir64 -x cl ${options} -Xclang -finclude-default-header
    -include ${PRELUDE} ${defines} -O2 -fno-vectorize -fno-slp-vectorize -emit-llvm -S
    -MD -MF ${DEPFILE} -MT ${OUTPUT} -o ${ll} ${SOURCE})

file(READ ${ll} ir)
string(REGEX REPLACE "(%[^ \n]+) = freeze ([^\n]*) ([^ \n]+)\n" "\\1 = bitcast \\2 \\3 to \\2\n"
       ir "${ir}")
file(WRITE ${ll} "${ir}")

run("LLVM IR -> bitcode" ${CLANG} -target spir64 -c -emit-llvm -o ${bc} ${ll})
run("bitcode -> SPIR-V" ${LLVM_SPIRV} --spirv-max-version=1.2 -o ${translated} ${bc})
run("ordering blocks" ${ORDER_BLOCKS} ${translated} ${ordered})
run("spirv-val" ${SPIRV_VAL} --target-env opencl1.2 ${ordered})
# Only a validated module reaches the output folder (the one that is installed).
file(RENAME ${ordered} ${OUTPUT})
file(REMOVE ${ll} ${bc} ${translated})
