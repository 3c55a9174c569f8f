"""The zh/en message catalogue: every user-facing text that exists in both languages.

One home for the texts shown in Chinese or English (the verdict of a score,
the command line's headings and labels, the quiz, the reach summaries, the
app's pages, and every label, choice, tooltip and message of the widgets:
quiz, hand builder, fan view, explorer), keyed by name, so a wording is
changed once and the two languages stay side by side::

    >>> text("quiz.prompt.total", "zh")
    '这手牌一共多少番？'
    >>> text("view.short", "en", n=2)
    '2 short'

:func:`text` gives a string (formatted with ``**fields``); :func:`value`
gives an entry that is not a single string (the headings of a table, the
labels of meld kinds); :func:`section` gives every entry under a prefix
(``section("cli", "zh")["rules"]``).  An unknown language or key raises
:class:`~mjkit.errors.HandError` (code ``"unknown_name"``).

The entries are ``key: (zh, en)``, of one shape and with the same ``{fields}``
(``tests/test_messages_catalogue.py`` checks it, and that the widgets show no
text in the other language).  Texts that are not translated (error messages,
the simulator's summary table) are not here; a widget shows such an error
after a line in its own language (``builder.refused``).
"""

from __future__ import annotations

from typing import Any

from .errors import HandError

__all__ = ["LANGS", "text", "value", "section", "lang_or_en", "lang_or_zh"]

#: The languages of the catalogue, in the order of its entries.
LANGS = ("zh", "en")

_CATALOGUE: dict[str, tuple[Any, Any]] = {
    # ---- ScoreResult.verdict (mjkit.score)
    "score.verdict.not_win": ("未和牌：这手牌不成和牌型，宣布和牌即为P胡。",
                              "Not a complete hand: declaring a win would be a false win (P胡)."),
    "score.verdict.where": ("（{level}，{minimum}−{relief}）", " at {level} ({minimum} - {relief})"),
    "score.verdict.legal": ("可以和：计番 {points} ≥ 起和 {bar}{where}。",
                            "Legal win: {points} counted fans, {bar} needed{where}."),
    "score.verdict.short": ("P胡警告：计番 {points}，起和需 {bar}{where}，"
                            "还差 {short} 番（花牌、无财神不计入起和）。",
                            "P胡 warning: {points} counted fans, {bar} needed{where}: {short} "
                            "short. Flowers and 无财神 do not count toward it; declaring this win "
                            "would be a false win (P胡)."),

    # ---- the command line (python -m mjkit score / fans)
    "cli.rules": ("规则", "rules"),
    "cli.reading": ("组合", "reading"),
    "cli.head": (("番种", "英文", "番数", "次数", "小计"),
                 ("Fan", "Chinese", "Points", "Count", "Value")),
    "cli.total": ("合计", "Total"),
    "cli.wild": ("财神 {w} 当作：{a}", "wild {w} stood for: {a}"),
    "cli.note": ("提示", "note"),
    "cli.not_counted": ("不计（被更高番种包含）：", "Not counted (不计, included in a higher fan):"),
    "cli.because": ("因", "because of"),
    "cli.none": ("无", "none"),
    "cli.not_win": ("不是和牌：这些牌不成完整的和牌型",
                    "not a complete hand: the tiles do not form a winning shape"),
    "cli.kinds": ({"chow": "顺", "pung": "刻", "kong": "杠", "pair": "将"},
                  {"chow": "chow", "pung": "pung", "kong": "kong", "pair": "pair"}),
    "cli.exposed": ("明", "exposed"),
    "cli.catalogue": ("{name}：{n} 个番种，起和 {m} 番", "{name}: {n} fans, {m}-fan minimum"),
    "cli.forms": ({"seven pairs": "七对", "thirteen orphans": "十三幺",
                   "honors and knitted tiles": "全不靠", "knitted straight": "组合龙"},
                  {"seven pairs": "seven pairs", "thirteen orphans": "thirteen orphans",
                   "honors and knitted tiles": "honors and knitted tiles",
                   "knitted straight": "knitted straight"}),
    "cli.fan_head": (("序号", "番数", "番种", "英文", "不计"),
                     ("ID", "Points", "Chinese", "Fan", "Not counted with it (不计)")),

    # ---- quiz questions (mjkit.quiz)
    "quiz.prompt.fans": ("这手牌计哪些番？", "Which fans does this hand count?"),
    "quiz.prompt.total": ("这手牌一共多少番？", "How many fans in all?"),
    "quiz.prompt.legal": ("{level}时可以和吗（起和 {bar} 番）？", "May it be declared{at} (bar {bar})?"),
    "quiz.not_counted": ("。不计：", ". Not counted: "),
    "quiz.end": ("。", ". "),

    # ---- the quiz widget (mjkit.widgets.quiz)
    "quiz_widget.new": ("新测验", "new quiz"),
    "quiz_widget.total": ("合计", "total"),
    "quiz_widget.check": ("检查", "check"),
    "quiz_widget.next": ("下一题", "next"),
    "quiz_widget.score": ("得分", "score"),
    "quiz_widget.done": ("<b>完成！</b>", "<b>Done!</b>"),
    "quiz_widget.choose": ("请选择可以或不可以", "choose yes or no"),
    "quiz_widget.right": ("正确！", "Right!"),
    "quiz_widget.wrong": ("不对。", "Not quite."),
    "quiz_widget.export": ("⬇ 导出CSV", "⬇ export CSV"),
    "quiz_widget.not_saved": ("教师副本保存失败", "could not save the teacher's copy"),
    "quiz_widget.saved": ("已为老师保存", "saved for the teacher as"),
    "quiz_widget.difficulties": ({"easy": "简单", "medium": "中等", "hard": "困难"},
                                 {"easy": "easy", "medium": "medium", "hard": "hard"}),
    "quiz_widget.yes": ("可以", "yes"),
    "quiz_widget.no": ("不可以", "no"),

    # ---- what every widget shares (mjkit.widgets.layout)
    "widgets.tile_size": ("牌的大小", "tile size"),
    "widgets.seed": ("随机种子", "seed"),
    # a term in each language's style: zh the Chinese name, en the English with the
    # Chinese beside it (fan names in the quiz and the explorer)
    "widgets.term": ("{zh}", "{en} ({zh})"),

    # ---- the hand builder (mjkit.widgets.builder)
    "builder.mode": ("点击加入", "click adds"),
    "builder.modes": ({"tile": "单张", "chow": "顺子", "pung": "刻子", "kong": "杠",
                       "concealed kong": "暗杠"},
                      {"tile": "tile", "chow": "chow", "pung": "pung", "kong": "kong",
                       "concealed kong": "concealed kong"}),
    "builder.win": ("和牌张", "win tile"),
    "builder.rules": ("规则", "rules"),
    "builder.rule_sets": ({"dazhong32": "大众32番连拉", "dazhong": "大众麻将", "gb": "国标麻将"},
                          {"dazhong32": "dazhong32 (大众32番连拉)", "dazhong": "dazhong (大众麻将)",
                           "gb": "Chinese Official (国标)"}),
    "builder.lianla": ("连N拉N", "streak (连N拉N)"),
    "builder.self_drawn": ("自摸", "self-drawn (自摸)"),
    "builder.seat": ("门风", "seat wind"),
    "builder.round": ("圈风", "round wind"),
    "builder.winds": (("东", "南", "西", "北"), ("East", "South", "West", "North")),
    "builder.flowers": ("花牌", "flowers (花)"),
    "builder.wild": ("财神", "wild (财神)"),
    "builder.no_wild": ("无", "none"),
    "builder.flags": ("和牌方式", "situation"),
    "builder.flag_names": ({"last_copy": "和绝张", "kong": "杠上开花/抢杠和",
                            "last_wall": "妙手回春/海底捞月", "heavenly_hand": "天和",
                            "earthly_hand": "地和", "human_hand": "人和", "heavenly_ready": "天听",
                            "earthly_ready": "地听", "declared_ready": "报听",
                            "double_ready": "双报听"},
                           {"last_copy": "last copy (和绝张)", "kong": "on a kong (杠上开花/抢杠和)",
                            "last_wall": "last tile (妙手回春/海底捞月)",
                            "heavenly_hand": "heavenly hand (天和)",
                            "earthly_hand": "earthly hand (地和)", "human_hand": "human hand (人和)",
                            "heavenly_ready": "heavenly ready (天听)",
                            "earthly_ready": "earthly ready (地听)",
                            "declared_ready": "declared ready (报听)",
                            "double_ready": "double ready (双报听)"}),
    "builder.draws": ("剩余摸牌", "draws left"),
    "builder.clear": ("清空", "clear"),
    # the language switch names each language so that a reader of the other finds it
    "builder.lang_zh": ("中文", "中文 Chinese"),
    "builder.lang_en": ("English 英文", "English"),
    "builder.palette_tip": ("{tile}：还剩 {n} 张", "{tile}: {n} left"),
    "builder.hand_tip": ("{tile}（点击取出）", "{tile} (click to take it out)"),
    "builder.meld_tip": ("点击取出这组牌", "click to take the meld out"),
    "builder.lianla_reset": ("不是庄家，连拉归零：{why}", "streak (连拉) reset to 0: {why}"),
    # a change refused by the engine: its reason follows in its own (English) words
    "builder.refused": ("不行：{why}", "Not possible: {why}"),
    # ... and by the builder's state (mjkit.widgets.state), in both languages
    "state.full": ("这手牌已有 14 张（一组算 3 张）", "the hand already has 14 tiles (a meld counts 3)"),
    "state.no_copy": ("{tile} 没有了：这手牌已有 4 张", "no copy of {tile} left: all 4 are in the hand"),
    "state.melds": ("一手牌最多 4 组", "a hand has at most 4 melds"),
    "state.no_room": ("再加一组就多于 14 张", "no room for another meld: the hand would pass 14 tiles"),
    "state.no_chow": ("没有以 {tile} 开头的顺子：顺子是同一门相连的三张，以 1–7 开头",
                      "no chow starts at {tile}: a chow is three tiles in a row of one suit, "
                      "starting at 1..7"),
    "state.short": ("{tile} 不够组成{meld}", "not enough copies of {tile} left for {meld}"),
    "state.melds_named": ({"chow": "顺子", "pung": "刻子", "kong": "杠", "concealed kong": "暗杠"},
                          {"chow": "a chow", "pung": "a pung", "kong": "a kong",
                           "concealed kong": "a concealed kong"}),
    "state.wild_meld": ("财神不能吃、碰；四张财神只能暗杠（混杠）",
                        "a wild tile (财神) is never chowed or punged; four of them can only be "
                        "a concealed kong (混杠)"),
    "state.wild_in_meld": ("顺子或刻子中有财神：财神不能吃、碰",
                           "the wild tile is in a chow or pung: a wild tile is never chowed or "
                           "punged"),

    # ---- the combination explorer (mjkit.widgets.explorer)
    "explorer.fans": ("番种", "fans"),
    "explorer.option": ("{zh}（{points} 番）", "{en} ({zh}, {points})"),
    "explorer.choose": ("选择番种（可以选多个）。", "Choose one or more fans."),
    "explorer.sure": ("一定有 {points} 番（{rules}）", "{points} fans sure ({rules})"),
    "explorer.patterns": ("含有这些番的完整门清牌型：{patterns}（所有牌型的 {share}）",
                          "complete closed patterns carrying it: {patterns} ({share} of all)"),
    "explorer.counted": ("这些牌型的计番：最少 {min}，中位数 {median}，最多 {max}",
                         "their counted fans: min {min}, median {median}, max {max}"),
    "explorer.reach": ("每个连拉的概率（单人对局）", "per streak level (连N拉N; one-player games)"),
    "explorer.reach_head": (("连拉", "含它的和牌", "每手", "和牌中"),
                            ("streak (连拉)", "wins with it", "P per hand", "P among wins")),
    "explorer.note": ("注：{note}", "note: {note}"),

    # ---- the classroom app's tabs (mjkit/app/classroom.ipynb); zh keeps the English word
    # so that a visitor who reads no Chinese still finds the two parts
    "classroom.quiz": ("测验 Quiz", "Quiz"),
    "classroom.builder": ("组牌 Hand builder", "Hand builder"),

    # ---- the fan view of the hand builder (mjkit.widgets.view)
    "view.fans": ("番种", "Fans"),
    "view.points": ("番数", "Points"),
    "view.count": ("次", "×"),
    "view.excludes": ("不计", "Excludes"),
    "view.total": ("合计", "Total"),
    "view.bar": ("起和", "Bar"),
    "view.not_counted": ("不计的番", "Not counted (不计)"),
    "view.because": ("因为", "because of"),
    "view.add": ("再加 {n} 张牌", "add {n} more tile(s)"),
    "view.too_many": ("牌太多", "too many tiles"),
    "view.shanten": ("向听数", "Shanten"),
    "view.ready": ("听牌", "ready"),
    "view.waits": ("和张", "Waits"),
    "view.unseen": ("剩余", "unseen"),
    "view.legal": ("可和", "legal"),
    "view.short": ("差 {n} 番", "{n} short"),
    "view.distance": ("距 {t} 番", "To {t} fans"),
    "view.no_index": ("（价值索引未建立：运行 mjkit.distance_to 一次即可）",
                      "(value index not built yet: run mjkit.distance_to once)"),
    "view.empty": ("点击下方的牌来组一手牌。", "Click tiles below to build a hand."),
    "view.complete": ("和牌", "complete"),
    "view.error": ("不能计番：{why}", "Cannot score it: {why}"),
    # win chances in the fan view (mjkit.widgets.view, from mjkit.advise)
    "view.chances.error": ("算不出和牌概率：{why}", "No win chances: {why}"),
    "view.chances.computing": ("计算中…", "computing…"),
    "view.chances.head": ("{draws} 次摸牌内合法和牌（起和 {bar} 番）的概率",
                          "Chance of a legal win (bar {bar}) within {draws} draws"),
    "view.chances.discard": ("打 {tile}：{p}", "discard {tile}: {p}"),
    "view.chances.hand": ("这手牌：{p}", "this hand: {p}"),
    "view.chances.fans": ("和牌时平均 {f} 番", "{f} counted fans on average when it wins"),
    "view.chances.target": ("最可能的目标：{hand}，还要 {need}（{counted} 番：{fans}），单靠它 {p}",
                            "likeliest target: {hand}, still needs {need} ({counted} fans: "
                            "{fans}), {p} on its own"),
    "view.chances.none": ("摸完这些牌也到不了够番的和牌", "no hand worth the bar is within reach "
                          "of these draws"),
    "view.chances.cut": ("（搜索到上限被截断：概率偏低）", "(the search was cut short: an "
                         "underestimate)"),

    # ---- distance_to (mjkit.distance.DistanceResult.summary)
    "distance.none": ("{hand}：没有够 {fans} 番的和牌", "{hand}: no complete hand reaches {fans} fans"),
    "distance.complete": ("已和够番", "complete and worth it"),
    "distance.ready": ("听够 {fans} 番的牌，要摸 {draws} 张",
                       "0 from a hand worth {fans} ({draws} tile{plural} to draw)"),
    "distance.away": ("距够 {fans} 番的和牌 {distance} 向听，要摸 {draws} 张",
                      "{distance} from a hand worth {fans} ({draws} tile{plural} to draw)"),
    "distance.head": ("{hand}：{where}（{fit} 张合用）", "{hand}: {where}; {fit} tiles fit"),
    "distance.example": ("  例：{hand}，{counted} 番 — {fans}",
                         "  e.g. {hand}: {counted} counted fans - {fans}"),
    "distance.plan": ("  留 {keep}，打 {discard}，要 {need}",
                      "  keep {keep}, let go {discard}, draw {need}"),

    # ---- targets (mjkit.targets.TargetsResult: seed 000's 6看 7停 8上)
    "targets.row": ("  {rank:>2}. {combination}：{distance} 向听，{fit} 张合用，要 {need}（{ways} 种摸法）",
                    "  {rank:>2}. {combination}: distance {distance}, {fit} fit, draw {need} "
                    "({ways} ways)"),
    "targets.none": ("没有可达的牌型", "no combination in the catalogue can be reached from this hand"),
    "targets.commit": ("{fit} 张合用：8上 — 定下 {name}，奔向和牌",
                       "{fit} tiles fit: 8上 (commit) - go for {name}"),
    "targets.think": ("7 张合用：7停 — 想一想再定：{name}{also}",
                      "7 tiles fit: 7停 (stop and think) - {name}{also}"),
    "targets.think_also": (" 还是 {name}", " or {name}"),
    "targets.look": ("{fit} 张合用：6看 — 留两个方向：{name}{also}",
                     "{fit} tiles fit: 6看 (look) - keep two directions: {name}{also}"),
    "targets.look_also": (" 和 {name}", " and {name}"),
    "targets.early": ("只有 {fit} 张合用：还早，保持灵活（最近：{name}）",
                      "only {fit} tiles fit: too early to choose (nearest: {name})"),

    # ---- waits (mjkit.reach.WaitsResult.summary)
    "reach.not_ready": ("{hand}: 未听牌 (not ready)", "{hand}: not ready: no tile completes it"),
    "reach.level": ("（连{n}拉{n}）", " at 连{n}拉{n}"),
    "reach.head": ("{hand}：听 {kinds} 种牌，共 {unseen} 张未见；起和 {bar}{level}",
                   "{hand}: waits on {kinds} kind(s), {unseen} unseen; {bar} fans needed{level}, "
                   "{legal} unseen tiles make a legal win"),
    "reach.legal": ("够番", "legal"),
    "reach.short": ("P胡，差 {short} 番", "P胡: {short} short"),
    "reach.row": ("  {tile}（剩 {unseen} 张）：{points} 番，{verdict} — {fans}",
                  "  {tile} ({unseen} left): {points} counted fans, {verdict} - {fans}"),

    # ---- what to discard (mjkit.advise.Advice.summary / .table)
    "advise.level": ("（连{n}拉{n}）", " at 连{n}拉{n}"),
    "advise.head.discard": ("{hand}：打 {tile}，剩 {draws} 摸，和出够 {bar} 番{where}的概率 {p}，"
                            "和牌平均计 {fans} 番",
                            "{hand}: discard {tile}: {p} chance of a legal win ({bar} fans"
                            "{where}) within {draws} draws, {fans} counted fans expected"),
    "advise.head.hold": ("{hand}：剩 {draws} 摸，和出够 {bar} 番{where}的概率 {p}，"
                         "和牌平均计 {fans} 番",
                         "{hand}: {p} chance of a legal win ({bar} fans{where}) within {draws} "
                         "draws, {fans} counted fans expected"),
    "advise.win": ("  这 14 张已是够番的和牌（计 {fans} 番）：宣布和牌！",
                   "  These 14 tiles are already a legal win worth {fans} counted fans: "
                   "declare it!"),
    "advise.distance": ("  距够 {bar} 番的和牌 {distance} 向听；有效牌 {useful}（共 {live} 张未见）",
                        "  distance {distance} (exchanges before ready) to a hand worth {bar}; "
                        "useful tiles {useful} ({live} live)"),
    "advise.no_target": ("  没有可达的够 {bar} 番的和牌",
                         "  no complete hand worth {bar} fans can be reached"),
    "advise.target": ("  主要目标：{hand}，{counted} 番 — {fans}；单做此牌的概率 {p}",
                      "  main target: {hand}: {counted} counted fans - {fans}; {p} alone"),
    "advise.cut": ("  注意：搜索达到节点上限，和牌概率偏低（低估）",
                   "  warning: the search reached its node limit (p_win is underestimated)"),
    "advise.lower_bound": ("  （超出精确搜索的摸牌数：和牌概率是只走有效进张的打法的值，是下限）",
                           "  (beyond the exact search: p_win is the value of playing useful "
                           "exchanges only, a lower bound)"),
    "advise.fast": ("  （快速模式：按它的打法排序；和牌概率是按单人对局实测校准的估计，不是精确值）",
                    "  (fast mode: rows in the order it plays them; p_win is an estimate "
                    "calibrated on one-player games, not an exact value)"),
    "advise.fast_efficiency": ("  （此门槛任何和牌都够：快速模式按牌效打，先列它打的那张，和牌概率不一定最高）",
                               "  (every complete hand reaches this bar: the fast mode plays "
                               "for tile efficiency; its discard comes first, whatever its "
                               "p_win)"),
    "advise.wild": ("  财神 {wild}：和牌概率已计财神；向听数与目标把财神当本身的牌（向听数是上限）",
                    "  wild {wild}: p_win counts it as wild; the distance and targets read it "
                    "as itself (the distance is an upper bound)"),
    "advise.columns": (("打", "和牌概率", "平均番", "每手番", "向听", "有效牌", "张数", "主要目标"),
                       ("discard", "p_win", "exp_fans", "per hand", "distance", "useful",
                        "live", "main target")),
    "advise.legend": ("和牌概率：剩下的摸牌里和出够番的和牌的概率；平均番：和了时的平均计番；"
                      "每手番 = 和牌概率 × 平均番；向听：离够番的和牌还差几张；有效牌：能减少向听的牌"
                      "（未见张数）；主要目标：最可能做成的够番牌型和单做它的概率",
                      "p_win: chance of a win worth the bar within the draws left; exp_fans: "
                      "average counted fans of such a win; per hand = p_win × exp_fans; "
                      "distance: tiles still to change for a win worth the bar; useful: the "
                      "kinds that lower it (live copies); main target: the likeliest such hand "
                      "and the chance of making it alone"),

    # ---- the classroom app (mjkit.app): the page a visitor beyond the cap sees
    "app.full.title": ("课堂已满", "The class is full"),
    "app.full.body": ("所有座位都有人了。请一分钟后刷新本页（有同学关闭页面后就会空出座位）。",
                      "Every seat is taken. Please reload this page in a minute: a seat frees "
                      "when a student\ncloses the tab."),
    # ---- what the server answers a bad address, a replaced or stopped page (mjkit.app)
    "app.bad_request.title": ("无法打开此页面", "Cannot open this page"),
    "app.bad_request.body": ("这个网址无效。请向老师要课堂链接。",
                             "This address is not valid. Ask your teacher for the class link."),
    "app.replaced.body": ("这个页面已在别处重新打开，这一份已停止。",
                          "This page was opened again elsewhere; this copy has stopped."),
    "app.busy.body": ("这台设备或这位同学打开的页面太多了。请关闭一个页面后刷新。",
                      "Too many pages are open from this device or for this student; close "
                      "one and reload."),
    "app.ended.body": ("这个页面的程序已经停止。请刷新页面重新开始。",
                       "This page's kernel has stopped. Reload the page to start again."),
    "app.idle.body": ("这个页面很久没有操作，已经停止。请刷新页面继续。",
                      "This page had no input for a long time and was stopped. Reload the page "
                      "to go on."),
    # the banner a student's page shows when its kernel is stopped (mjkit.app.kernel_guard)
    "app.memory.body": ("这个页面占用的内存太多，已经停止。请刷新页面重新开始。",
                        "This page used too much memory and was stopped. Reload the page to "
                        "start again."),
    # ---- the join page and the teacher's page (mjkit.app.teacher)
    "app.join.title": ("加入课堂", "Join the class"),
    "app.join.code": ("课堂代码", "Class code"),
    "app.join.name": ("你的名字", "Your name"),
    "app.join.seat": ("座位号（可不填）", "Seat number (optional)"),
    "app.join.go": ("加入", "Join"),
    "app.join.bad_code": ("课堂代码不对，请看老师的屏幕。", "That is not the class code: look at "
                          "the teacher's screen."),
    "app.join.bad_name": ("请填写名字（1到40个字）。", "Please give a name (1 to 40 characters)."),
    "app.join.bad_seat": ("座位号是1到999的数字（可以不填）。",
                          "A seat is a number from 1 to 999 (or leave it empty)."),
    "app.join.slow_down": ("尝试次数太多，请稍后再试。", "Too many tries: wait a few minutes."),
    "app.teacher.title": ("教师页面", "Teacher's page"),
    "app.teacher.join": ("扫码或打开网址加入", "Scan or open the address to join"),
    "app.teacher.students": ("学生", "Students"),
    "app.teacher.joined": ("已加入 {n} 人", "{n} joined"),
    "app.teacher.columns": (("座位", "名字", "已答", "答对", "得分"),
                            ("seat", "name", "answered", "right", "score")),
    "app.teacher.questions": ("各题", "Questions"),
    "app.teacher.qcolumns": (("题", "类型", "手牌", "答案", "已答", "答对率", "常见错答"),
                             ("question", "kind", "hand", "answer", "answered", "right",
                              "common wrong answers")),
    "app.teacher.rates": ("各题答对率", "Share right per question"),
    "app.teacher.download": ("下载结果", "Download the results"),
    "app.teacher.none": ("还没有人作答。", "No answers yet."),
    "app.teacher.updated": ("每2秒自动更新", "updates every 2 seconds"),
    "app.teacher.denied": ("需要教师链接（见服务器终端）。", "This page needs the teacher's link "
                           "(printed in the server's terminal)."),
    "app.teacher.db_error": ("无法读取课堂数据库：{reason}",
                             "The class database cannot be read: {reason}"),
    "quiz_widget.recorded": ("已记录", "recorded"),
    "quiz_widget.not_recorded": ("记录失败，请告诉老师", "not recorded: tell the teacher"),
    "quiz_widget.student": ("学生：{name}", "Student: {name}"),

    # ---- a hand's record shown move by move (mjkit.table.view)
    "record.seat": ("{wind}家", "{wind}"),
    "record.dealer": ("庄", "dealer"),
    "record.round": ("{wind}风圈", "{wind} round"),
    "record.level": ("连{n}拉{n}", "streak 连{n}拉{n}"),
    "record.hand_no": ("牌局 {n}", "hand {n}"),
    "record.wild": ("财神", "wild (财神)"),
    "record.wall": ("牌墙剩 {n} 张", "{n} tiles left in the wall"),
    "record.step": ("{i} / {n} 步", "event {i} of {n}"),
    "record.flowers": ("花", "flowers"),
    "record.discards": ("打出的牌", "discards"),
    "record.start": ("牌局开始前", "before the first event"),
    "record.moves": ("每一步", "every move"),
    "record.prev": ("◀ 上一步", "◀ previous"),
    "record.next": ("下一步 ▶", "next ▶"),
    "record.slider": ("步", "event"),
    "record.ev.hand": ("牌局 {hand} 开始：{rules}", "hand {hand} begins: {rules}"),
    "record.ev.wild": ("财神是 {tile}", "the wild tile (财神) is {tile}"),
    "record.ev.draw": ("{seat} 摸 {tile}", "{seat} draws {tile}"),
    "record.ev.draw_back": ("{seat} 补牌 {tile}", "{seat} draws {tile} from the back of the wall"),
    "record.ev.draw_hidden": ("{seat} 摸牌", "{seat} draws a tile"),
    "record.ev.exchange_hidden": ("{seat} 换了一张牌", "{seat} exchanges a tile"),
    "record.ev.flower": ("{seat} 补花 {tile}", "{seat} sets the flower {tile} aside"),
    "record.ev.dealt": ("发完牌了", "the deal is over"),
    "record.ev.exchange": ("{seat} 换牌：{gave} 换 {got}", "{seat} exchanges {gave} for {got}"),
    "record.ev.discard": ("{seat} 打出 {tile}", "{seat} discards {tile}"),
    "record.ev.chow": ("{seat} 吃 {from} 的 {tile}：{tiles}", "{seat} chows {from}'s {tile}: {tiles}"),
    "record.ev.pung": ("{seat} 碰 {from} 的 {tile}", "{seat} pungs {from}'s {tile}"),
    "record.ev.kong": ("{seat} 明杠 {from} 的 {tile}", "{seat} kongs {from}'s {tile}"),
    "record.ev.concealed_kong": ("{seat} 暗杠 {tile}", "{seat} makes a concealed kong of {tile}"),
    "record.ev.added_kong": ("{seat} 加杠 {tile}", "{seat} adds {tile} to a pung: a kong"),
    "record.ev.pass_win": ("{seat} 可以和 {tile}，没有和", "{seat} could win on {tile} but does not"),
    "record.ev.pass": ("{seat} 不要 {tile}", "{seat} lets {tile} go"),
    "record.ev.win_self": ("{seat} 自摸 {tile} 和牌", "{seat} wins on a self-drawn {tile}"),
    "record.ev.win_discard": ("{seat} 和 {from} 打出的 {tile}", "{seat} wins on {from}'s discard {tile}"),
    "record.ev.win_robbed": ("{seat} 抢 {from} 的杠和 {tile}", "{seat} robs {from}'s kong of {tile} to win"),
    "record.ev.false_win": ("{seat} 以 {tile} P胡", "{seat} declares a false win (P胡) on {tile}"),
    "record.ev.drawn_out": ("荒牌：牌墙摸完了", "drawn out (荒牌): the wall is used up"),
    "record.ev.end": ("这一手打完了", "the hand is over"),
    "record.value": ("计番 {counted}，共 {total} 番", "{counted} counted fans, {total} in all"),
    "record.short": ("起和 {bar} 番，差 {short} 番", "{bar} needed: {short} short"),
    "record.fans": ("番种", "fans"),
    "record.payments": ("得分", "payments"),

    # ---- the coach and the review (mjkit.review)
    "review.target": ("留着能做 {hand}（还缺 {need}；计番 {counted}：{fans}），单靠它 {p}",
                      "keeps {hand} (needs {need}; {counted} counted fans: {fans}), "
                      "alone {p}"),
    "review.no_target": ("留不住够起和的牌型", "keeps no hand worth the bar"),
    "review.win_legal": ("可以和：计番 {counted} ≥ 起和 {bar}（多 {over} 番）",
                         "a legal win: {counted} counted fans, {bar} needed ({over} over)"),
    "review.win_short": ("P胡：计番 {counted}，起和 {bar}，差 {short} 番",
                         "a false win (P胡): {counted} counted fans, {bar} needed, "
                         "{short} short"),
    "review.reason": ("你选 {mine}：{p_mine}，{mine_keeps}。更好的 {best}：{p_best}，{best_keeps}。",
                      "You chose {mine}: {p_mine}, {mine_keeps}. Better, {best}: {p_best}, "
                      "{best_keeps}."),
    "review.reason_win": ("和牌可以和：计番 {counted} 够起和 {bar}，你却选了 {mine}（{p_mine}）。",
                          "The win was legal ({counted} counted fans, {bar} needed); you "
                          "chose {mine} ({p_mine})."),
    "review.reason_false": ("P胡：计番 {counted}，起和要 {bar}，差 {short} 番；{best} 更好（{p_best}）。",
                            "A false win (P胡): {counted} counted fans, {bar} needed, {short} "
                            "short; {best} was better ({p_best})."),
    "review.reason_engine": ("引擎选 {engine}，你选 {mine}。", "The engine chose {engine}; you chose {mine}."),
    "review.flag.costly": ("损失大", "costly"),
    "review.flag.false_win": ("P胡", "false win (P胡)"),
    "review.flag.win_let_go": ("放过了能和的牌", "a legal win let go"),
    "review.flag.differs": ("与引擎不同", "differs from the engine"),
    "review.title": ("复盘", "Review"),
    "review.head": (("#", "问", "你的选择", "引擎", "你的和牌率", "最好", "损失", "标记", "说明"),
                    ("#", "asked", "your choice", "engine", "your p_win", "best", "loss",
                     "flags", "why")),
    "review.totals": ("共 {n} 个决定：与引擎一致 {match}；和牌率共损失 {lost}；P胡 {false_wins} 次；"
                      "放过能和的牌 {let_go} 次",
                      "{n} decisions: {match} as the engine; p_win lost in all {lost}; "
                      "{false_wins} false wins (P胡); {let_go} legal wins let go"),
    "review.plot": ("每一步的和牌率（实线：你的选择；虚线：最好的选择）",
                    "p_win at each decision (solid: your choice; dashed: the best)"),
    "review.asked.exchange": ("起手换牌", "exchange"),
    "review.asked.turn": ("摸牌后", "own turn"),
    "review.asked.discard": ("吃碰后打牌", "discard after a claim"),
    "review.asked.claim": ("别人打牌", "another's discard"),
    "review.asked.rob": ("抢杠", "a kong to rob"),

    # ---- the practice table (mjkit.widgets.PlayTable)
    "action.win": ("和", "win"),
    "action.discard": ("打 {tile}", "discard {tile}"),
    "action.exchange": ("换 {tiles}", "exchange {tiles}"),
    "action.keep": ("不换", "keep the hand"),
    "action.pass": ("过", "pass"),
    "action.pung": ("碰 {tile}", "pung {tile}"),
    "action.chow": ("吃 {tiles}", "chow {tiles}"),
    "action.kong": ("杠 {tile}", "kong {tile}"),
    "play.exchange": ("换这些牌（{n} 张）", "exchange these ({n})"),
    "play.exchange_help": ("起手换牌：点最多三张牌选中，再按“换”；不换就直接按。",
                           "Exchange (起手换牌): click up to three tiles, then the button; "
                           "press it at once to keep your hand."),
    "play.turn": ("轮到你：点一张牌打出", "Your turn: click a tile to discard it"),
    "play.discard": ("吃碰之后：点一张牌打出", "After your claim: click a tile to discard"),
    "play.claim": ("{seat} 打出 {tile}：要吗？", "{seat} discards {tile}: claim it?"),
    "play.rob": ("{seat} 加杠 {tile}：抢杠和吗？", "{seat} adds {tile} to a pung: rob it?"),
    "play.sitting_out": ("你P胡了，这一手由替身打", "You sit out after a P胡: a substitute plays"),
    "play.hand_over": ("这一手结束了", "The hand is over"),
    "play.next": ("下一手", "next hand"),
    "play.session_over": ("这一局打完了：{n} 手", "The session is over: {n} hands"),
    "play.scores": ("得分", "scores"),
    "play.status_head": (("座位", "起和", "得分"), ("seat", "bar", "points")),
    "play.you": ("你", "you"),
    "play.coach": ("教练", "coach"),
    "play.exam": ("考试（不提示，自己数番）", "exam (no hints: count your own fans)"),
    "play.deep": ("细算", "deep"),
    "play.computing": ("计算中…", "computing…"),
    "play.best": ("最好：{action}（{p}）", "best: {action} ({p})"),
    "play.engine": ("引擎：{action}", "engine: {action}"),
    "play.option": ("{action}：{p}", "{action}: {p}"),
    "play.bar": ("你的起和：{bar} 番", "your bar: {bar} fans"),
    "play.refused": ("不行：{why}", "Not possible: {why}"),
    "play.review": ("复盘", "review"),
}


def _lang_index(lang: Any) -> int:
    from .validate import lang as check_lang   # validate imports this module (LANGS)

    return LANGS.index(check_lang(lang))


def value(key: str, lang: str) -> Any:
    """The entry ``key`` in ``lang`` as stored (a str, a tuple of headings, a mapping of labels).

    Raises
    ------
    HandError
        ``code="unknown_name"``: an unknown language (not ``"zh"`` or
        ``"en"``) or key.
    """
    i = _lang_index(lang)
    try:
        entry = _CATALOGUE[key]
    except (KeyError, TypeError):
        raise HandError(f"unknown message {key!r}", code="unknown_name") from None
    return entry[i]


def text(key: str, lang: str, **fields: Any) -> str:
    """The message ``key`` in ``lang``, its ``{fields}`` filled in.

    Parameters
    ----------
    key : str
        E.g. ``"score.verdict.legal"``.
    lang : {"zh", "en"}
    **fields
        The values of the message's ``{placeholders}`` (extra ones are
        ignored, so one call can serve both languages' templates).

    Raises
    ------
    HandError
        ``code="unknown_name"``: an unknown language or key, or a key whose
        entry is not a single text (use :func:`value`).
    """
    out = value(key, lang)
    if not isinstance(out, str):
        raise HandError(f"message {key!r} is not a single text: use messages.value()",
                        code="unknown_name")
    return out.format(**fields) if fields else out


def section(prefix: str, lang: str) -> dict[str, Any]:
    """Every entry whose key starts with ``prefix + "."``, by the rest of its key, in ``lang``."""
    i = _lang_index(lang)
    head = prefix + "."
    out = {k[len(head):]: v[i] for k, v in _CATALOGUE.items() if k.startswith(head)}
    if not out:
        raise HandError(f"unknown message section {prefix!r}", code="unknown_name")
    return out


def lang_or_en(lang: Any) -> str:
    """``"zh"`` for ``"zh"``, else ``"en"``: for texts where every other value means English."""
    return "zh" if lang == "zh" else "en"


def lang_or_zh(lang: Any) -> str:
    """``"en"`` for ``"en"``, else ``"zh"``: for texts where every other value means Chinese."""
    return "en" if lang == "en" else "zh"
