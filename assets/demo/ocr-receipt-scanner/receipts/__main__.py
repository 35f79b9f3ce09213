"""Extract merchant, date, total and line items from a photographed receipt."""
import json
import re
import sys

import cv2
import numpy as np
import pytesseract

DATE = re.compile(r"\b(\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2})\b")
AMOUNT = re.compile(r"(-?\d+[.,]\d{2})\s*$")
TOTAL_WORDS = ("total", "summe", "totale", "amount due")

def deskew(gray: np.ndarray) -> np.ndarray:
    coords = np.column_stack(np.where(gray < 128))
    angle = cv2.minAreaRect(coords)[-1]
    angle = -(90 + angle) if angle < -45 else -angle
    h, w = gray.shape
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    return cv2.warpAffine(gray, matrix, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)

def preprocess(path: str) -> np.ndarray:
    gray = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2GRAY)
    gray = cv2.resize(gray, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC)
    gray = deskew(gray)
    return cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 10)

def ocr_lines(image: np.ndarray) -> list[tuple[str, float]]:
    data = pytesseract.image_to_data(image, output_type=pytesseract.Output.DICT)
    lines: dict[tuple, list] = {}
    for i, word in enumerate(data["text"]):
        if word.strip():
            key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
            lines.setdefault(key, []).append((word, float(data["conf"][i])))
    return [(" ".join(w for w, _ in ws), sum(c for _, c in ws) / len(ws) / 100) for ws in lines.values()]

def parse(lines: list[tuple[str, float]]) -> dict:
    result = {"merchant": None, "date": None, "total": None, "items": []}
    if lines:
        result["merchant"] = {"value": lines[0][0], "confidence": round(lines[0][1], 2)}
    for text, conf in lines:
        amount = AMOUNT.search(text)
        if result["date"] is None and (d := DATE.search(text)):
            result["date"] = {"value": d.group(1), "confidence": round(conf, 2)}
        if not amount:
            continue
        value = float(amount.group(1).replace(",", "."))
        label = text[: amount.start()].strip()
        if any(w in label.lower() for w in TOTAL_WORDS):
            result["total"] = {"value": value, "confidence": round(conf, 2)}
        elif result["total"] is None and label:
            result["items"].append({"description": label, "amount": value, "confidence": round(conf, 2)})
    return result

if __name__ == "__main__":
    print(json.dumps(parse(ocr_lines(preprocess(sys.argv[1]))), indent=2))
