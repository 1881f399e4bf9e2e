import Cards
