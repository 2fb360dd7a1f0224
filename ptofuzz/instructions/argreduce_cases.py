"""The arg reductions' system-test cases (pto-isa 3186c381, ``tests/{cpu/st,npu/<plat>/src/st}/testcase/``
``t{row,col}arg{max,min}/`` and ``targreduceop/``): what each case's gen_data.py declares, one line a case.

Each line is one case; trailing tags narrow where it belongs: a platform name (``a2a3``, ``a5``) keeps it to that
platform's test alone, ``max`` to the ARGMAX instruction's test; an untagged line is in every test the table serves.

* Row tests: ``ROW_A2A3`` (a2a3), ``ROW_A5`` (a5, kirin9030 and kirinDev0000; TROWARGMAX's and TROWARGMIN's alike
  but for the tagged lines): ``name dtype idx dst-idx-tile src-tile valid [dst-value-tile]`` (a value tile: the
  value + index form).
* Column tests (``COL``: a2a3, a5 and the kirins, which run a5's lines, tagged or not): ``name dtype idx
  dst-idx-cols src-tile valid [dst-value-cols]``, the destinations one row.
* cpu (``CPU``, one test of all four): ``name dtype idx valid src-tile dst-idx-tile [dst-value-tile]``, the
  instruction in the name (``case_row_max_...``).
"""

from __future__ import annotations

ROW_A2A3 = """
case_uint32_float_8x1_8x8_1x8_8x8 float32 uint32 8x1 8x8 8x8
case_uint32_float_1024x1_1024x8_1x8_1024x8 float32 uint32 1024x1 1024x8 1024x8
case_uint32_float_16x1_13x16_1x8_13x13 float32 uint32 16x1 13x16 13x13
case_uint32_float_1024x1_1023x24_1x8_1023x17 float32 uint32 1024x1 1023x24 1023x17
case_uint32_float_8x1_8x64_1x8_8x64 float32 uint32 8x1 8x64 8x64
case_uint32_float_264x1_260x64_1x8_260x64 float32 uint32 264x1 260x64 260x64
case_uint32_float_64x1_32x128_32x24_32x128 float32 uint32 64x1 32x128 32x128
case_uint32_float_8x1_3x4096_3x192_3x4095 float32 uint32 8x1 3x4096 3x4095
case_uint32_float_8x1_1x16384_1x768_1x16381 float32 uint32 8x1 1x16384 1x16381
case_uint32_half_16x1_2x16_2x16_2x16 float16 uint32 16x1 2x16 2x16
case_uint32_half_16x1_13x16_1x16_13x13 float16 uint32 16x1 13x16 13x13
case_uint32_half_272x1_260x64_1x16_260x64 float16 uint32 272x1 260x64 260x64
case_uint32_half_272x1_260x128_1x16_260x128 float16 uint32 272x1 260x128 260x128
case_uint32_half_16x1_3x8192_3x384_3x8191 float16 uint32 16x1 3x8192 3x8191
case_uint32_half_16x1_1x16384_1x768_1x16381 float16 uint32 16x1 1x16384 1x16381
case_uint32_half_16x1_1x32768_1x768_1x32761 float16 uint32 16x1 1x32768 1x32761
case_int32_float_16x1_13x16_1x8_13x13 float32 int32 16x1 13x16 13x13
case_int32_half_16x1_13x16_1x16_13x13 float16 int32 16x1 13x16 13x13
case_uint32_float_3x8_3x3480_3x168_3x3473 float32 uint32 3x8 3x3480 3x3473
case_uint32_float_260x8_260x64_1x8_260x64 float32 uint32 260x8 260x64 260x64
case_uint32_float_1023x8_1023x24_1x8_1023x17 float32 uint32 1023x8 1023x24 1023x17
case_uint32_float_2x8_2x16384_2x768_2x16381 float32 uint32 2x8 2x16384 2x16381
case_uint32_half_3x16_3x3488_3x768_3x3473 float16 uint32 3x16 3x3488 3x3473
case_uint32_half_260x16_260x64_1x16_260x64 float16 uint32 260x16 260x64 260x64
case_uint32_half_1023x16_1023x32_1x16_1023x17 float16 uint32 1023x16 1023x32 1023x17
case_uint32_half_2x16_2x32768_2x768_2x32761 float16 uint32 2x16 2x32768 2x32761
case_uint32_float_1024x1_1024x1_1023x24_1023x8_1023x17 float32 uint32 1024x1 1023x24 1023x17 1024x1
case_uint32_float_264x1_264x1_260x64_260x8_260x64 float32 uint32 264x1 260x64 260x64 264x1
case_uint32_float_8x1_8x1_3x4096_3x192_3x4095 float32 uint32 8x1 3x4096 3x4095 8x1
case_uint32_float_8x1_8x1_1x16384_1x768_1x16381 float32 uint32 8x1 1x16384 1x16381 8x1
case_uint16_half_272x1_272x1_260x64_260x16_260x63 float16 uint16 272x1 260x64 260x63 272x1
case_uint16_half_272x1_272x1_260x128_260x16_260x127 float16 uint16 272x1 260x128 260x127 272x1
case_uint16_half_16x1_16x1_3x8192_3x384_3x8191 float16 uint16 16x1 3x8192 3x8191 16x1
case_uint16_half_16x1_16x1_1x16384_1x768_1x16381 float16 uint16 16x1 1x16384 1x16381 16x1
case_uint16_half_16x1_16x1_1x32768_1x768_1x32761 float16 uint16 16x1 1x32768 1x32761 16x1
case_uint32_float_777x8_777x8_777x24_777x8_777x17 float32 uint32 777x8 777x24 777x17 777x8
case_uint32_float_784x1_777x8_777x24_777x8_777x17 float32 uint32 777x8 777x24 777x17 784x1
case_uint32_float_777x8_784x1_777x24_777x8_777x17 float32 uint32 784x1 777x24 777x17 777x8
case_uint32_float_3x8_3x8_3x4096_3x192_3x4095 float32 uint32 3x8 3x4096 3x4095 3x8
case_uint32_float_8x1_3x8_3x4096_3x192_3x4095 float32 uint32 3x8 3x4096 3x4095 8x1
case_uint32_float_3x8_8x1_3x4096_3x192_3x4095 float32 uint32 8x1 3x4096 3x4095 3x8
case_uint32_float_1x8_1x8_1x16384_1x768_1x16381 float32 uint32 1x8 1x16384 1x16381 1x8
case_uint32_float_8x1_1x8_1x16384_1x768_1x16381 float32 uint32 1x8 1x16384 1x16381 8x1
case_uint32_float_1x8_8x1_1x16384_1x768_1x16381 float32 uint32 8x1 1x16384 1x16381 1x8
case_uint16_half_777x16_777x16_777x48_777x16_777x43 float16 uint16 777x16 777x48 777x43 777x16
case_uint16_half_784x1_777x16_777x48_777x16_777x43 float16 uint16 777x16 777x48 777x43 784x1
case_uint16_half_777x16_784x1_777x48_777x16_777x43 float16 uint16 784x1 777x48 777x43 777x16
case_uint16_half_3x16_3x16_3x4096_3x192_3x4095 float16 uint16 3x16 3x4096 3x4095 3x16
case_uint16_half_16x1_3x16_3x4096_3x192_3x4095 float16 uint16 3x16 3x4096 3x4095 16x1
case_uint16_half_3x16_16x1_3x4096_3x192_3x4095 float16 uint16 16x1 3x4096 3x4095 3x16
case_uint16_half_1x16_1x16_1x32768_1x768_1x32761 float16 uint16 1x16 1x32768 1x32761 1x16
case_uint16_half_16x1_1x16_1x32768_1x768_1x32761 float16 uint16 1x16 1x32768 1x32761 16x1
case_uint16_half_1x16_16x1_1x32768_1x768_1x32761 float16 uint16 16x1 1x32768 1x32761 1x16
case_uint32_half_16x1_16x1_2x4096_2x1536_2x4096 float16 uint32 16x1 2x4096 2x4096 16x1
case_uint32_half_16x1_16x1_1x65552_1x1536_1x65552 float16 uint32 16x1 1x65552 1x65552 16x1
case_uint32_half_272x1_272x1_272x112_272x16_272x112 float16 uint32 272x1 272x112 272x112 272x1
case_uint32_half_272x16_272x8_272x112_272x16_272x112 float16 uint32 272x8 272x112 272x112 272x16
"""

ROW_A5 = """
case_uint32_float_8x1_8x8_8x8 float32 uint32 8x1 8x8 8x8
case_uint32_float_184x1_184x128_184x128 float32 uint32 184x1 184x128 184x128 max a5
case_uint32_float_1024x1_1024x8_1024x8 float32 uint32 1024x1 1024x8 1024x8
case_uint32_float_16x1_13x16_13x13 float32 uint32 16x1 13x16 13x13
case_uint32_float_1024x1_1023x24_1023x17 float32 uint32 1024x1 1023x24 1023x17
case_uint32_float_8x1_8x64_8x64 float32 uint32 8x1 8x64 8x64
case_uint32_float_264x1_260x64_260x64 float32 uint32 264x1 260x64 260x64
case_uint32_float_8x1_1x128_1x128 float32 uint32 8x1 1x128 1x128
case_uint32_float_64x1_32x128_32x128 float32 uint32 64x1 32x128 32x128
case_uint32_float_8x1_3x4096_3x4095 float32 uint32 8x1 3x4096 3x4095
case_uint32_float_8x1_2x16384_2x16381 float32 uint32 8x1 2x16384 2x16381 a5
case_uint32_half_16x1_2x16_2x16 float16 uint32 16x1 2x16 2x16
case_uint32_half_16x1_13x16_13x13 float16 uint32 16x1 13x16 13x13
case_uint32_half_272x1_260x64_260x64 float16 uint32 272x1 260x64 260x64
case_uint32_half_16x1_3x8192_3x8191 float16 uint32 16x1 3x8192 3x8191
case_uint32_half_16x1_1x16384_1x16381 float16 uint32 16x1 1x16384 1x16381 a5
case_uint32_half_16x1_1x32768_1x32761 float16 uint32 16x1 1x32768 1x32761 a5
case_int32_float_16x1_13x16_13x13 float32 int32 16x1 13x16 13x13
case_int32_half_16x1_13x16_13x13 float16 int32 16x1 13x16 13x13
case_uint32_float_3x8_3x3480_3x3473 float32 uint32 3x8 3x3480 3x3473
case_uint32_float_260x8_260x64_260x64 float32 uint32 260x8 260x64 260x64
case_uint32_float_1023x8_1023x24_1023x17 float32 uint32 1023x8 1023x24 1023x17
case_uint32_half_3x16_3x3488_3x3473 float16 uint32 3x16 3x3488 3x3473
case_uint32_half_260x16_260x64_260x64 float16 uint32 260x16 260x64 260x64
case_uint32_half_1023x16_1023x32_1023x17 float16 uint32 1023x16 1023x32 1023x17
case_uint32_float_8x1_8x1_8x8_8x8 float32 uint32 8x1 8x8 8x8 8x1
case_uint32_float_8x8_8x1_8x8_8x8 float32 uint32 8x1 8x8 8x8 8x8
case_uint32_float_8x1_8x8_8x8_8x8 float32 uint32 8x8 8x8 8x8 8x1
case_uint32_float_8x8_8x8_8x8_8x8 float32 uint32 8x8 8x8 8x8 8x8
case_uint32_float_1024x1_1024x1_1024x8_1024x7 float32 uint32 1024x1 1024x8 1024x7 1024x1
case_uint32_float_8x1_8x1_2x16384_2x16381 float32 uint32 8x1 2x16384 2x16381 8x1 a5
case_uint16_half_16x1_16x1_8x16_8x16 float16 uint16 16x1 8x16 8x16 16x1
case_uint16_half_8x16_16x1_8x16_8x16 float16 uint16 16x1 8x16 8x16 8x16
case_uint16_half_16x1_8x16_8x16_8x16 float16 uint16 8x16 8x16 8x16 16x1
case_uint16_half_8x16_8x16_8x16_8x16 float16 uint16 8x16 8x16 8x16 8x16
case_uint16_half_1024x1_1024x1_1024x16_1024x13 float16 uint16 1024x1 1024x16 1024x13 1024x1
case_uint16_half_16x1_16x1_2x16384_2x16381 float16 uint16 16x1 2x16384 2x16381 16x1 a5
"""

COL = """
case01 float32 int32 256 1x256 1x255
case02 float32 int32 128 16x128 16x127
case03 float32 int32 256 16x256 15x255
case11 float16 int32 256 1x256 1x255
case12 float16 int32 128 16x128 16x127
case13 float16 int32 256 16x256 15x255
case21 int8 int32 256 1x256 1x255 a5
case22 int8 int32 128 16x128 16x127 a5
case23 int8 int32 256 16x256 15x255 a5
case31 uint8 int32 256 1x256 1x255 a5
case32 uint8 int32 128 16x128 16x127 a5
case33 uint8 int32 256 16x256 15x255 a5
case41 int16 int32 256 1x256 1x255 a5
case42 int16 int32 128 16x128 16x127 a5
case43 int16 int32 256 16x256 15x255 a5
case51 uint16 int32 256 1x256 1x255
case52 uint16 int32 128 16x128 16x127
case53 uint16 int32 256 16x256 15x255
case61 int32 int32 256 1x256 1x255 a5
case62 int32 int32 128 16x128 16x127 a5
case63 int32 int32 256 16x256 15x255 a5
case71 uint32 int32 256 1x256 1x255
case72 uint32 int32 128 16x128 16x127
case73 uint32 int32 256 16x256 15x255
case81 float16 int32 32 16x32 16x32 max
case82 uint16 int32 32 16x32 16x32 max
case83 uint32 int32 32 16x32 16x31 max
case84 float32 int32 32 16x32 16x31 max
case85 int8 int32 32 16x32 16x31 a5 max
case86 uint8 int32 32 16x32 16x31 a5 max
case87 int16 int32 32 16x32 16x31 a5 max
case88 int32 int32 32 16x32 16x31 a5 max
case91 uint16 int32 120 16x128 16x120 max
case92 float16 int32 88 16x96 16x88 max
case93 uint16 int32 40 4x48 4x34 max
case001 float32 int32 256 1x256 1x255 256 max
case002 float32 int32 128 16x128 16x127 128 max
case003 float32 int32 256 16x256 15x255 256 max
case011 float16 int16 256 1x256 1x255 256 max
case012 float16 int16 128 16x128 16x127 128 max
case013 float16 int16 256 16x256 15x255 256 max
case041 int16 int16 256 1x256 1x255 256 a5 max
case042 int16 int16 128 16x128 16x127 128 a5 max
case043 int16 int16 256 16x256 15x255 256 a5 max
case051 uint16 int16 256 1x256 1x255 256 max
case052 uint16 int16 128 16x128 16x127 128 max
case053 uint16 int16 256 16x256 15x255 256 max
case061 int32 int32 256 1x256 1x255 256 a5 max
case062 int32 int32 128 16x128 16x127 128 a5 max
case063 int32 int32 256 16x256 15x255 256 a5 max
case071 uint32 int32 256 1x256 1x255 256 max
case072 uint32 int32 128 16x128 16x127 128 max
case073 uint32 int32 256 16x256 15x255 256 max
case081 float16 int16 32 16x32 16x32 32 max
case082 uint16 int16 32 16x32 16x32 32 max
case083 uint32 int32 32 16x32 16x31 32 max
case084 float32 int32 32 16x32 16x31 32 max
case091 uint16 int16 128 16x128 16x120 128 a2a3 max
case092 float16 int16 96 16x96 16x88 96 a2a3 max
case093 uint16 int16 48 4x48 4x34 48 a2a3 max
case085 int16 int16 32 16x32 16x31 32 a5 max
case086 int32 int32 32 16x32 16x31 32 a5 max
case091 uint16 int16 120 16x128 16x120 120 a5 max
case092 float16 int16 88 16x96 16x88 88 a5 max
case093 uint16 int16 40 4x48 4x34 40 a5 max
"""

CPU = """
case_row_min_uint32_float_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64
case_row_max_uint32_float_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64
case_row_val_min_uint32_float_64x64_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64 64x64
case_row_val_max_uint32_float_64x64_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64 64x64
case_col_min_uint32_float_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64
case_col_max_uint32_float_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64
case_col_val_min_uint32_float_64x64_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64 64x64
case_col_val_max_uint32_float_64x64_64x64_64x64_64x64 float32 uint32 64x64 64x64 64x64 64x64
case_row_min_int32_half_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256
case_row_max_int32_half_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256
case_row_val_min_int32_half_16x256_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256 16x256
case_row_val_max_int32_half_16x256_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256 16x256
case_col_min_int32_half_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256
case_col_max_int32_half_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256
case_col_val_min_int32_half_16x256_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256 16x256
case_col_val_max_int32_half_16x256_16x256_16x256_16x256 float16 int32 16x256 16x256 16x256 16x256
case_row_min_uint32_float_16x16_32x32_64x64 float32 uint32 16x16 32x32 64x64
case_row_max_uint32_float_16x16_32x32_64x64 float32 uint32 16x16 32x32 64x64
case_row_val_min_uint32_float_16x16_32x32_64x64_32x32 float32 uint32 16x16 32x32 64x64 32x32
case_row_val_max_uint32_float_16x16_32x32_64x64_32x32 float32 uint32 16x16 32x32 64x64 32x32
case_col_min_uint32_float_16x16_32x32_64x64 float32 uint32 16x16 32x32 64x64
case_col_max_uint32_float_16x16_32x32_64x64 float32 uint32 16x16 32x32 64x64
case_col_val_min_uint32_float_16x16_32x32_64x64_32x32 float32 uint32 16x16 32x32 64x64 32x32
case_col_val_max_uint32_float_16x16_32x32_64x64_32x32 float32 uint32 16x16 32x32 64x64 32x32
"""
