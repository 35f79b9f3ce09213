"""Render a PDF invoice from a JSON order with ReportLab."""
import json
import sys
from decimal import ROUND_HALF_UP, Decimal

from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"}

def money(amount: Decimal, currency: str) -> str:
    digits = Decimal("1") if currency == "JPY" else Decimal("0.01")
    return f"{SYMBOLS.get(currency, currency + ' ')}{amount.quantize(digits, ROUND_HALF_UP):,}"

def totals(order):
    net = tax = Decimal(0)
    rows = []
    for item in order["items"]:
        line = Decimal(str(item["unit_price"])) * item["quantity"]
        line_tax = line * Decimal(str(item.get("tax_rate", order.get("tax_rate", 0))))
        net, tax = net + line, tax + line_tax
        rows.append([item["description"], item["quantity"], money(Decimal(str(item["unit_price"])), order["currency"]),
                     money(line, order["currency"])])
    return rows, net, tax

def qr(payload: str) -> Drawing:
    widget = QrCodeWidget(payload)
    x1, y1, x2, y2 = widget.getBounds()
    drawing = Drawing(90, 90, transform=[90 / (x2 - x1), 0, 0, 90 / (y2 - y1), 0, 0])
    drawing.add(widget)
    return drawing

def number_pages(canvas, doc):
    canvas.setFont("Helvetica", 8)
    canvas.drawRightString(A4[0] - 40, 25, f"Page {doc.page}")

def render(order, out_path: str) -> None:
    styles = getSampleStyleSheet()
    rows, net, tax = totals(order)
    cur = order["currency"]
    table = Table([["Item", "Qty", "Unit price", "Amount"], *rows,
                   ["", "", "Net", money(net, cur)], ["", "", "Tax", money(tax, cur)],
                   ["", "", "Total", money(net + tax, cur)]], colWidths=[250, 50, 90, 90])
    table.setStyle(TableStyle([("BACKGROUND", (0, 0), (-1, 0), colors.HexColor(order.get("brand_color", "#1f2937"))),
                               ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
                               ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                               ("LINEABOVE", (2, -3), (-1, -3), 0.5, colors.grey)]))
    story = [Paragraph(order["seller"], styles["Title"]),
             Paragraph(f"Invoice {order['number']} — {order['date']}", styles["Heading2"]),
             Paragraph(f"Bill to: {order['customer']}", styles["Normal"]), Spacer(1, 16), table, Spacer(1, 24)]
    if order.get("payment_uri"):
        story += [Paragraph("Scan to pay", styles["Normal"]), qr(order["payment_uri"])]
    SimpleDocTemplate(out_path, pagesize=A4).build(story, onFirstPage=number_pages, onLaterPages=number_pages)

if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf8") as f:
        render(json.load(f), sys.argv[2])
