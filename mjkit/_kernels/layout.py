"""The kernel row: one hand as a flat int array (see docs/architecture.md)."""

N_KINDS = 34

# Offsets into a row.
COUNTS = 0            # 34 counts of the concealed tiles, winning tile included
MELDS = 34            # 4 x (type, tile)
WIN = 42              # winning tile index
FLAGS = 43            # bit set, see below
SEAT = 44             # 0..3 = E S W N
ROUND = 45            # 0..3
FLOWERS = 46          # number of flowers
ROW_LEN = 47

# Meld types in a row.
M_NONE = 0
M_CHOW = 1
M_PUNG = 2
M_KONG = 3            # exposed kong
M_CKONG = 4           # concealed kong

# Flag bits.
F_SELF_DRAWN = 1
F_LAST_COPY = 2
F_KONG = 4
F_LAST_WALL = 8

# Set kinds inside a reading.
CHOW = 1
PUNG = 2
KONG = 3

# Forms of a reading (the first entry of a decomposition record).
FORM_NONE = 0
FORM_REGULAR = 1
FORM_SEVEN_PAIRS = 2
FORM_THIRTEEN_ORPHANS = 3
FORM_HONORS_KNITTED = 4
FORM_KNITTED_STRAIGHT = 5

# A decomposition record: form, pair tile, knitted sequence (or -1), then
# 4 x (kind, tile, exposed).
DEC_FORM = 0
DEC_PAIR = 1
DEC_KNIT = 2
DEC_SETS = 3
DEC_LEN = 15
