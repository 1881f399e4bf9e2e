enum StorePlaceholder {}
