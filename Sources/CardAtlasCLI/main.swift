print("cardatlas")
