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
FLOWER_MASK = 47      # bit i set: flower tile 34 + i held (春夏秋冬梅兰竹菊); 0 if unknown
WILD = 48             # the wild tile kind (财神), -1 for none
LIANLA = 49           # the dealer's streak level N of 连N拉N (0 for none)
ROW_LEN = 50

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
F_HEAVENLY_HAND = 16      # 天和
F_EARTHLY_HAND = 32       # 地和
F_HUMAN_HAND = 64         # 人和
F_HEAVENLY_READY = 128    # 天听
F_EARTHLY_READY = 256     # 地听
F_DECLARED_READY = 512    # 报听
F_DOUBLE_READY = 1024     # 双报听
F_LEFTMOST = 2048         # wait fans as the old client reads them (wait_rule="leftmost")
F_WILD_SUBST = 4096       # some wild tile stands for another kind (set by the wild search)

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
FORM_EIGHT_FLOWERS = 6    # 八花聚顶: a win by itself, whatever the tiles

# A decomposition record: form, pair tile, knitted sequence (or -1), then
# 4 x (kind, tile, exposed).
DEC_FORM = 0
DEC_PAIR = 1
DEC_KNIT = 2
DEC_SETS = 3
DEC_WILD = 15         # 4 tiles the wild tiles stood for (-1 unused)
DEC_WILD_WIN = 19     # 1 if the winning tile was a wild tile
DEC_COUNTED = 20      # fans toward the bar (flowers and the like excluded; 连拉 included)
DEC_LEN = 21
