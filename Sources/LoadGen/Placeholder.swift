enum LoadGenPlaceholder {}
