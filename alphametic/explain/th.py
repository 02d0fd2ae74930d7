"""The explanation's sentences in Thai: the same keys and placeholders as ENGLISH.

Written as a Thai maths teacher would explain it in class (หลักหน่วย, หลักสิบ, ตัวทด), not
word for word. Thai ends a sentence with a space rather than a full stop, so the sentences
of one step are separated by spaces.
"""

from __future__ import annotations

__all__ = ["THAI"]

_COLUMNS = (
    "เขียนเป็นการบวกแบบตั้งหลัก แล้วคิดทีละหลัก ให้ c1 เป็นตัวทดจาก{first:col} c2 เป็นตัวทด"
    "จากหลักถัดไป และต่อไปเรื่อย ๆ "
)
_EXTRA = (
    "{word} มีจำนวนหลักมากกว่าทุกจำนวนที่นำมาบวก ตัวแรกของมันคือ {letter} "
    "จึงเป็นแค่ตัวทดจากหลักทางขวา และตัวทดนั้นไม่เกิน {high}"
)
_MOD = (
    "ลองดูเศษจากการหารด้วย {modulus} ไม่ว่า {base} จะยกกำลังเท่าไร หารด้วย {modulus} แล้ว"
    "จะเหลือเศษ {power} เสมอ ดังนั้น "
)
_MOD_ALL = (
    "ลองดูเศษจากการหารด้วย {modulus} ไม่ว่า {base} จะยกกำลังเท่าไร หารด้วย {modulus} แล้ว"
    "จะเหลือเศษ {power} เสมอ และตัวอักษรทั้ง {count} ตัวใช้เลขโดดครบทุกตัว ตัวละหนึ่งครั้ง "
    "รวมกันได้ {total} ดังนั้น "
)
_PARITY = "ลองดูว่าเป็นเลขคู่หรือเลขคี่ ผลบวกจะเป็นเลขคู่หรือไม่ขึ้นอยู่กับหลักหน่วยเท่านั้น ดังนั้น "
_PARITY_ALL = (
    "ลองดูว่าเป็นเลขคู่หรือเลขคี่ ผลบวกจะเป็นเลขคู่หรือไม่ขึ้นอยู่กับหลักหน่วยเท่านั้น "
    "และตัวอักษรทั้ง {count} ตัวใช้เลขโดดครบทุกตัว ตัวละหนึ่งครั้ง รวมกันได้ {total} ดังนั้น "
)
_ONLY_IF = " ซึ่งจะเป็นจริงได้ก็ต่อเมื่อ {facts:facts}"
_NO_DIGITS = " แต่ไม่มีเลขโดดที่เหลืออยู่ชุดใดทำให้เป็นจริงได้"
_DEAD_END = " ทางนี้จึงไปต่อไม่ได้"

# Why a product is read as it is (the product steps).
_TURNED = "การหารที่ลงตัวก็คือการคูณที่มองกลับด้าน "
_POWERS = "การยกกำลังก็คือการคูณจำนวนเดียวกันซ้ำ ๆ "
_REWRITTEN = "โจทย์นี้จึงเขียนได้เป็น {equation}"
_UNITS = "หลักหน่วยของผลคูณขึ้นอยู่กับหลักหน่วยของตัวคูณแต่ละตัวเท่านั้น ดังนั้น "
_ENDING = "เลข {width} หลักท้ายของผลคูณขึ้นอยู่กับเลข {width} หลักท้ายของตัวคูณแต่ละตัวเท่านั้น ดังนั้น "
_SIZES = (
    "เปรียบเทียบขนาดของสองข้างของ {equation} แต่ละคำมีค่าอยู่ระหว่างจำนวนที่น้อยที่สุดกับมากที่สุดที่ตัวอักษรของมันยังเป็นได้ "
)
_CAST = (
    "ลองดูเศษจากการหารด้วย {modulus} ไม่ว่า {base} จะยกกำลังเท่าไร หารด้วย {modulus} แล้ว"
    "จะเหลือเศษ 1 เสมอ จำนวนหนึ่งจึงมีเศษเท่ากับผลบวกของเลขโดดของมัน และเศษคูณกันได้ ดังนั้น "
)

_MIXED_UNITS = "หลักหน่วยของผลบวกและผลคูณขึ้นอยู่กับหลักหน่วยของแต่ละจำนวนในนั้นเท่านั้น ดังนั้น "
_MIXED_ENDING = (
    "เลข {width} หลักท้ายของผลบวกและผลคูณขึ้นอยู่กับเลข {width} หลักท้ายของแต่ละจำนวนในนั้นเท่านั้น ดังนั้น "
)
_MIXED_CAST = (
    "ลองดูเศษจากการหารด้วย {modulus} ไม่ว่า {base} จะยกกำลังเท่าไร หารด้วย {modulus} แล้ว"
    "จะเหลือเศษ 1 เสมอ จำนวนหนึ่งจึงมีเศษเท่ากับผลบวกของเลขโดดของมัน และเศษบวกและคูณกันได้ ดังนั้น "
)

#: The Thai sentence of every step key.
THAI: dict[str, str] = {
    "given": "โจทย์กำหนดมาให้ว่า {facts:facts}",
    "leading": "{letters:and} เป็นตัวแรกของคำ จึงไม่มีตัวใดเป็น 0 ได้",
    "leading_one": "{letters:and} เป็นตัวแรกของคำ จึงเป็น 0 ไม่ได้",
    "columns": _COLUMNS + "ตัวทดจะมากกว่า {high} หรือน้อยกว่า {low} ไม่ได้",
    "columns_plain": _COLUMNS + "เมื่อบวกกัน {terms} จำนวน ตัวทดแต่ละตัวจะมากกว่า {high} ไม่ได้",
    "columns_no_carry": _COLUMNS + "แต่ในโจทย์นี้ไม่มีหลักใดมีตัวทดเลย",
    "extra_column": _EXTRA + " เนื่องจาก {letter} เป็น 0 ไม่ได้ จึงได้ว่า {facts:facts}",
    "extra_column_plain": _EXTRA + " จึงได้ว่า {facts:facts}",
    "extra_column_not_zero": _EXTRA + " เนื่องจากรู้แล้วว่า {letter} ไม่ใช่ 0 จึงได้ว่า {facts:facts}",
    "column": "พิจารณา{column:col}: {equation}" + _ONLY_IF,
    "column_reduced": "พิจารณา{column:col}: {equation} เมื่อแทน {known:and} จะได้ {reduced}" + _ONLY_IF,
    "column_gives": "พิจารณา{column:col}: {equation} เมื่อแทน {known:and} จะได้ {reduced}",
    "column_fails": "พิจารณา{column:col}: {equation}" + _NO_DIGITS,
    "column_reduced_fails": "พิจารณา{column:col}: {equation} เมื่อแทน {known:and} จะได้ {reduced}"
    + _NO_DIGITS,
    "pair_differs": "ดังนั้น {high} จะเท่ากับ {low} + {difference} เสมอ",
    "pair_narrows": "เนื่องจาก {high} = {low} + {difference} จึงได้ว่า {facts:facts}",
    "last_digit": "เลขโดดอื่นที่ {letter} เป็นได้ถูกใช้ไปหมดแล้ว ดังนั้น {letter} = {digit}",
    "no_digit": "เลขโดดทุกตัวที่ {letter} เป็นได้ถูกใช้ไปหมดแล้ว" + _DEAD_END,
    "hidden_single": "เลขโดดแต่ละตัวต้องถูกใช้ครั้งเดียวพอดี และตอนนี้มีแค่ {letter} ที่ยังเป็น "
    "{digit} ได้ ดังนั้น {letter} = {digit}",
    "digit_unused": "เลขโดดทุกตัวต้องถูกใช้ แต่ไม่มีตัวอักษรใดเป็น {digit} ได้อีกแล้ว" + _DEAD_END,
    "subset": "{letters:and} เป็นได้แค่ {digits:or} ตัวอักษรกลุ่มนี้จึงใช้ {digits:and} ไปหมด "
    "และได้ว่า {facts:facts}",
    "subset_fails": "{letters:and} ต้องเป็นเลขโดดที่ต่างกันทั้งหมด แต่เป็นได้แค่ {digits:or}" + _DEAD_END,
    "mod": _MOD + "{equation} (mod {modulus})" + _ONLY_IF,
    "mod_all": _MOD_ALL + "{equation} (mod {modulus})" + _ONLY_IF,
    "mod_fails": _MOD + "{equation} (mod {modulus})" + _NO_DIGITS,
    "mod_all_fails": _MOD_ALL + "{equation} (mod {modulus}) ซึ่งเป็นไปไม่ได้",
    "parity": _PARITY + "{equation} (mod 2)" + _ONLY_IF,
    "parity_all": _PARITY_ALL + "{equation} (mod 2)" + _ONLY_IF,
    "parity_fails": _PARITY + "{equation} (mod 2)" + _NO_DIGITS,
    "parity_all_fails": _PARITY_ALL + "{equation} (mod 2) ซึ่งเป็นไปไม่ได้",
    "stall": "ถึงตรงนี้ใช้เหตุผลอย่างเดียวไปต่อไม่ได้แล้ว จึงแยกกรณี {letter} = {digits:or} แล้วลองทีละกรณี",
    "case_fails": "ดังนั้น {letter} = {digit} เป็นไปไม่ได้",
    "case_solved": "ตอนนี้รู้ค่าของตัวอักษรครบทุกตัวแล้ว: {facts:facts}",
    "case_open": "จากตรงนี้ให้การค้นหาทำต่อ (ยังเหลือตัวอักษรที่ไม่รู้ค่าอีก {count} ตัว)",
    "case_open_one": "จากตรงนี้ให้การค้นหาทำต่อ (ยังเหลือตัวอักษรที่ไม่รู้ค่าอีกตัวเดียว)",
    "case_only": "กรณีอื่นไปต่อไม่ได้ทั้งหมด ดังนั้น {letter} = {digit}",
    "case_narrowed": "กรณี {letter} = {failed:or} ไปต่อไม่ได้ ดังนั้น {letter} เป็นได้แค่ {digits:or}",
    "products_turned": _TURNED + _REWRITTEN,
    "products_powers": _POWERS + _REWRITTEN,
    "products_both": _TURNED + "และ" + _POWERS + _REWRITTEN,
    "product_units": _UNITS + "{equation} (mod {modulus})" + _ONLY_IF,
    "product_units_fails": _UNITS + "{equation} (mod {modulus})" + _NO_DIGITS,
    "product_ending": _ENDING + "{equation} (mod {modulus})" + _ONLY_IF,
    "product_ending_fails": _ENDING + "{equation} (mod {modulus})" + _NO_DIGITS,
    "product_sizes": _SIZES + "สองข้างจะเท่ากันได้ก็ต่อเมื่อ {facts:facts}",
    "product_sizes_fails": _SIZES + "และช่วงของสองข้างไม่ทับกันเลย" + _DEAD_END,
    "mixed_units": _MIXED_UNITS + "{equation} (mod {modulus})" + _ONLY_IF,
    "mixed_units_fails": _MIXED_UNITS + "{equation} (mod {modulus})" + _NO_DIGITS,
    "mixed_ending": _MIXED_ENDING + "{equation} (mod {modulus})" + _ONLY_IF,
    "mixed_ending_fails": _MIXED_ENDING + "{equation} (mod {modulus})" + _NO_DIGITS,
    "mixed_mod": _MIXED_CAST + "{equation} (mod {modulus})" + _ONLY_IF,
    "mixed_mod_fails": _MIXED_CAST + "{equation} (mod {modulus})" + _NO_DIGITS,
    "product_mod": _CAST + "{equation} (mod {modulus})" + _ONLY_IF,
    "product_mod_fails": _CAST + "{equation} (mod {modulus})" + _NO_DIGITS,
    "product_check_fails": "เมื่อรู้ค่าตัวอักษรครบทุกตัว {equation} จะกลายเป็น {numbers} ซึ่งไม่จริง" + _DEAD_END,
    "not_a_sum": "โจทย์นี้ไม่ใช่การบวกคำธรรมดา จึงไม่มีหลักให้คิดทีละหลัก "
    "การค้นหาจะลองค่าของตัวอักษรทั้ง {count} ตัวเอง",
    "cap": "คิดด้วยมือเท่านี้ก็พอแล้ว ที่เหลือให้การค้นหาทำต่อ",
    "no_solution": "ทุกกรณีไปต่อไม่ได้ ปริศนานี้จึงไม่มีคำตอบ",
    "search_stopped": "การค้นหาไม่พบคำตอบภายใน {seconds:g} วินาทีและหยุดไปแล้ว จึงยังไม่รู้ว่ามีคำตอบหรือไม่",
    "solution_unique": "คำตอบมีเพียงคำตอบเดียว คือ {line}",
    "solutions": "ปริศนานี้มี {count} คำตอบ คำตอบแรกคือ {line}",
    "solutions_many": "ปริศนานี้มีอย่างน้อย {count} คำตอบ คำตอบแรกคือ {line}",
    "solution_at_least_one": "ปริศนานี้มีคำตอบอย่างน้อยหนึ่งคำตอบ คือ {line}",
    "difficulty": "ความยาก: {label:label} ({score})",
    "rating": "{label:label} ({score})",
    # Pieces that the format specs are built from.
    "part.is": "{name} = {value}",
    "part.one_of": "{name} เป็น {values:or}",
    "part.between": "{name} อยู่ระหว่าง {low} ถึง {high}",
    "part.or": "{head} หรือ {last}",
    "part.and": "{head} และ {last}",
    "part.comma": ", ",
    "part.col.1": "หลักหน่วย",
    "part.col.2": "หลักสิบ",
    "part.col.3": "หลักร้อย",
    "part.col.4": "หลักพัน",
    "part.col.5": "หลักหมื่น",
    "part.col.6": "หลักแสน",
    "part.col.7": "หลักล้าน",
    "part.col.n": "หลักที่ {n} นับจากทางขวา",
    "part.label.easy": "ง่าย",
    "part.label.medium": "ปานกลาง",
    "part.label.hard": "ยาก",
    "part.label.fiendish": "ยากมาก",
}
