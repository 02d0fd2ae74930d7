"""The explanation's sentences in Japanese: the same keys and placeholders as ENGLISH.

Written as a Japanese puzzle book would put it (です/ます, 「一の位」「十の位」, 「繰り上がり」),
not word for word. Lists are joined with 「、」 ("M、S"), alternatives end in 「または」, and facts
are written as a maths teacher would ("S = 8 または 9", "2 ≤ E ≤ 8"), so that in a list of facts
each one starts with its letter: "c2 = 1、D = 1、3 または 5、2 ≤ E ≤ 8".
"""

from __future__ import annotations

__all__ = ["JAPANESE"]

_COLUMNS = (
    "筆算の形に書いて位ごとに考えます。{first:col}からの繰り上がりを c1、"
    "その次の位からの繰り上がりを c2、……と呼びます。"
)
_EXTRA = (
    "{word} は足すどの数よりも桁が多いので、先頭の {letter} はすぐ右の位からの"
    "繰り上がりそのもので、その繰り上がりは {high} 以下です。"
)
_MOD = (
    "{modulus} で割った余りに注目します。{base} を何回かけても "
    "{modulus} で割った余りは {power} なので、"
)
_MOD_ALL = (
    "{modulus} で割った余りに注目します。{base} を何回かけても "
    "{modulus} で割った余りは {power} で、"
    "{count} 個の文字は数字をちょうど1回ずつ使うのでその合計は {total} です。よって "
)
_PARITY = "偶数か奇数かに注目します。和が偶数になるかどうかは一の位だけで決まるので、"
_PARITY_ALL = (
    "偶数か奇数かに注目します。和が偶数になるかどうかは一の位だけで決まり、{count} 個の文字は"
    "数字をちょうど1回ずつ使うのでその合計は {total} です。よって "
)
_ONLY_IF = "これが成り立つのは {facts:facts} のときだけです。"
_NO_DIGITS = "残っている数字ではこれを満たせません。"

# Why a product is read as it is (the product steps).
_TURNED = "割り切れる割り算は、掛け算を逆から見たものです。"
_POWERS = "累乗は同じ数を何回か掛け合わせたものです。"
_REWRITTEN = "よって、この問題は {equation} という式になります。"
_UNITS = "積の一の位は、掛ける数それぞれの一の位だけで決まるので、"
_ENDING = "積の下 {width} 桁は、掛ける数それぞれの下 {width} 桁だけで決まるので、"
_SIZES = (
    "{equation} の両辺の大きさを比べます。どの単語も、その文字がまだなれる数字で作れる"
    "いちばん小さい数といちばん大きい数の間にあります。"
)
_CAST = (
    "{modulus} で割った余りに注目します。{base} を何回かけても {modulus} で割った余りは 1 "
    "なので、どの数もその各位の数字の和と同じ余りになり、余りは掛け算しても保たれます。よって "
)

_MIXED_UNITS = "和や積の一の位は、そこに出てくる数それぞれの一の位だけで決まるので、"
_MIXED_ENDING = "和や積の下 {width} 桁は、そこに出てくる数それぞれの下 {width} 桁だけで決まるので、"
_MIXED_CAST = (
    "{modulus} で割った余りに注目します。{base} を何回かけても {modulus} で割った余りは 1 "
    "なので、どの数もその各位の数字の和と同じ余りになり、余りは足し算や掛け算をしても保たれます。"
    "よって "
)

#: The Japanese sentence of every step key.
JAPANESE: dict[str, str] = {
    "given": "はじめから {facts:facts} と分かっています。",
    "leading": "{letters:and} は単語の先頭の文字なので、どれも 0 ではありません。",
    "leading_one": "{letters:and} は単語の先頭の文字なので、0 ではありません。",
    "columns": _COLUMNS + "繰り上がりは {high} より大きくも、{low} より小さくもなりません。",
    "columns_plain": _COLUMNS + "足す数は {terms} 個なので、繰り上がりはどれも {high} 以下です。",
    "columns_no_carry": _COLUMNS + "ただし、この式ではどの位からも繰り上がりは出ません。",
    "extra_column": _EXTRA + "{letter} は 0 ではないので、{facts:facts} です。",
    "extra_column_plain": _EXTRA + "よって {facts:facts} です。",
    "extra_column_not_zero": _EXTRA + "{letter} が 0 でないことはすでに分かっているので、"
    "{facts:facts} です。",
    "column": "{column:col}の式は {equation} です。" + _ONLY_IF,
    "column_reduced": "{column:col}の式は {equation} です。{known:and} を入れると {reduced} と"
    "なります。" + _ONLY_IF,
    "column_gives": "{column:col}の式は {equation} です。{known:and} を入れると {reduced} と"
    "決まります。",
    "column_fails": "{column:col}の式は {equation} ですが、" + _NO_DIGITS,
    "column_reduced_fails": "{column:col}の式は {equation} です。{known:and} を入れると {reduced} "
    "となりますが、" + _NO_DIGITS,
    "pair_differs": "つまり、{high} はいつも {low} + {difference} です。",
    "pair_narrows": "{high} = {low} + {difference} なので、{facts:facts} です。",
    "last_digit": "{letter} がなれるほかの数字はもう使われているので、{letter} = {digit} です。",
    "no_digit": "{letter} がなれる数字はもう全部使われています。行き止まりです。",
    "hidden_single": "どの数字もちょうど1回ずつ使われますが、{digit} になれる文字はもう {letter} "
    "しかないので、{letter} = {digit} です。",
    "digit_unused": "どの数字も必ず使われるはずなのに、{digit} になれる文字がもうありません。"
    "行き止まりです。",
    "subset": "{letters:and} は {digits:or} にしかなれないので、{digits:and} はこれらの文字で"
    "使い切られます。よって {facts:facts} です。",
    "subset_fails": "{letters:and} はすべて違う数字のはずなのに、{digits:or} にしかなれません。"
    "行き止まりです。",
    "mod": _MOD + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "mod_all": _MOD_ALL + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "mod_fails": _MOD + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "mod_all_fails": _MOD_ALL + "{equation} (mod {modulus}) ですが、これはありえません。",
    "parity": _PARITY + "{equation} (mod 2) です。" + _ONLY_IF,
    "parity_all": _PARITY_ALL + "{equation} (mod 2) です。" + _ONLY_IF,
    "parity_fails": _PARITY + "{equation} (mod 2) ですが、" + _NO_DIGITS,
    "parity_all_fails": _PARITY_ALL + "{equation} (mod 2) ですが、これはありえません。",
    "stall": "推理だけではここから先に進めません。{letter} = {digits:or} の場合に分けて、"
    "一つずつ試します。",
    "case_fails": "したがって、{letter} = {digit} ではありえません。",
    "case_solved": "これですべての文字が決まりました：{facts:facts}。",
    "case_open": "ここから先は探索に任せます（まだ決まっていない文字が {count} 個あります）。",
    "case_open_one": "ここから先は探索に任せます（まだ決まっていない文字があと1つあります）。",
    "case_only": "ほかの場合はすべて行き止まりなので、{letter} = {digit} です。",
    "case_narrowed": "{letter} = {failed:or} ではうまくいかないので、{letter} は {digits:or} に"
    "絞られます。",
    "products_turned": _TURNED + _REWRITTEN,
    "products_powers": _POWERS + _REWRITTEN,
    "products_both": _TURNED + _POWERS + _REWRITTEN,
    "product_units": _UNITS + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "product_units_fails": _UNITS + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "product_ending": _ENDING + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "product_ending_fails": _ENDING + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "product_sizes": _SIZES + "両辺が等しくなれるのは {facts:facts} のときだけです。",
    "product_sizes_fails": _SIZES + "この範囲では両辺は等しくなれません。行き止まりです。",
    "mixed_units": _MIXED_UNITS + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "mixed_units_fails": _MIXED_UNITS + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "mixed_ending": _MIXED_ENDING + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "mixed_ending_fails": _MIXED_ENDING + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "mixed_mod": _MIXED_CAST + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "mixed_mod_fails": _MIXED_CAST + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "product_mod": _CAST + "{equation} (mod {modulus}) です。" + _ONLY_IF,
    "product_mod_fails": _CAST + "{equation} (mod {modulus}) ですが、" + _NO_DIGITS,
    "product_check_fails": "すべての文字が決まると {equation} は {numbers} となりますが、"
    "これは成り立ちません。行き止まりです。",
    "not_a_sum": "この問題は単語を足し合わせるだけの式ではないので、位ごとに考えることは"
    "できません。{count} 個の文字は探索で調べます。",
    "cap": "手で追うのはここまでにして、残りは探索に任せます。",
    "no_solution": "どの場合も行き止まりなので、この覆面算には解がありません。",
    "search_stopped": "探索は {seconds:g} 秒以内に解を見つけられずに止まりました。解があるか"
    "どうかは、まだ分かりません。",
    "solution_unique": "解はただ一つ、{line} です。",
    "solutions": "この覆面算には解が {count} 個あります。最初の解は {line} です。",
    "solutions_many": "この覆面算には解が少なくとも {count} 個あります。最初の解は {line} です。",
    "solution_at_least_one": "この覆面算には解が少なくとも1つあります。その一つは {line} です。",
    "difficulty": "難易度：{label:label}（{score}）",
    "rating": "{label:label}（{score}）",
    # Pieces that the format specs are built from.
    "part.is": "{name} = {value}",
    "part.one_of": "{name} = {values:or}",
    "part.between": "{low} ≤ {name} ≤ {high}",
    "part.or": "{head} または {last}",
    "part.and": "{head}、{last}",
    "part.comma": "、",
    "part.col.1": "一の位",
    "part.col.2": "十の位",
    "part.col.3": "百の位",
    "part.col.4": "千の位",
    "part.col.5": "一万の位",
    "part.col.6": "十万の位",
    "part.col.7": "百万の位",
    "part.col.n": "右から {n} 番目の位",
    "part.label.easy": "やさしい",
    "part.label.medium": "ふつう",
    "part.label.hard": "むずかしい",
    "part.label.fiendish": "超難問",
}
